// The hazard-pointer domain's global state: the registry's counters, the shared retired list
// (objects of exited threads and of retire() calls after a thread's teardown) and the
// reclamation threshold that both the private and the shared list are measured against.
// Design: saferecl/hazard_pointer.hpp.
#include "hazard_internal.hpp"

#include <algorithm>

namespace saferecl::detail {

using namespace hazard_impl;

namespace hazard_impl {

// ---------------------------------------------------------------------------------------
// Global state: constant-initialized, trivially destructible, never torn down, so it is
// usable from any static constructor or destructor and from any thread-exit hook.
// ---------------------------------------------------------------------------------------

constinit registry_state g_registry;
constinit shared_list_state g_shared;
// Retires this thread made straight to the shared list (it has no private list: exiting or
// exited), so a shared pass can tell that its own deleters retired more.
thread_local constinit std::size_t t_shared_retires = 0;

// The retired count at which a thread (or the shared list) runs a reclamation pass.
// NB-H10 (conforming): 4 x the records plus a floor of 16,384, a design that trades memory
// for fewer passes; what stays outstanding is still bounded by the record count.
std::ptrdiff_t current_threshold() noexcept {
  auto r = static_cast<std::ptrdiff_t>(g_registry.records.load(std::memory_order_relaxed));
  if (SAFERECL_MUTANT("NB-H10")) return 4 * r + 16'384;
  return std::max(kHazardMinThreshold, 2 * r);
}

// ---------------------------------------------------------------------------------------
// Shared retired list
// ---------------------------------------------------------------------------------------

void push_shared(hazard_retired_node* first, hazard_retired_node* last,
                 std::ptrdiff_t n) noexcept {
  hazard_retired_node* head = g_shared.head.load(std::memory_order_relaxed);
  do {
    node_access::next(last) = head;
  } while (!g_shared.head.compare_exchange_weak(head, first, std::memory_order_release,
                                                std::memory_order_relaxed));
  g_shared.count.fetch_add(n, std::memory_order_relaxed);
}

hazard_retired_node* take_shared() noexcept {
  if (g_shared.head.load(std::memory_order_relaxed) == nullptr) return nullptr;
  hazard_retired_node* list;
  if (SAFERECL_MUTANT("MH-18")) {  // read-then-clear: overlapping passes take the same list
    list = g_shared.head.load(std::memory_order_acquire);
    SAFERECL_MUTANT_WIDEN_WINDOW();
    g_shared.head.store(nullptr, std::memory_order_relaxed);
  } else {
    list = g_shared.head.exchange(nullptr, std::memory_order_acquire);
  }
  std::ptrdiff_t n = 0;
  for (hazard_retired_node* p = list; p != nullptr; p = node_access::next(p)) ++n;
  g_shared.count.fetch_sub(n, std::memory_order_relaxed);
  return list;
}

hazard_retired_node* concat(hazard_retired_node* a, hazard_retired_node* b) noexcept {
  if (a == nullptr) return b;
  if (b == nullptr) return a;
  hazard_retired_node* tail = a;
  while (node_access::next(tail) != nullptr) tail = node_access::next(tail);
  node_access::next(tail) = b;
  return a;
}

}  // namespace hazard_impl

}  // namespace saferecl::detail
