// What the source files of the reference <hazard_pointer> share (not a public header): the
// global state of the domain, the registry walk, and the functions one concern's file calls
// in another's. Who defines what:
//
//   hazard_domain.cpp        global state, the threshold, the shared retired list, lists
//   hazard_records.cpp       the record registry (blocks) and the pool of free records
//   hazard_thread_cache.cpp  make/release slow paths through the per-thread record cache
//   hazard_reclamation.cpp   reclamation passes and the retire slow paths
//   hazard_thread_exit.cpp   attaching a thread and handing its state back at exit
//   hazard_batch.cpp         the C++29 batch functions
//
// Design: saferecl/hazard_pointer.hpp.
#pragma once

#include "saferecl/hazard_pointer.hpp"

#include "saferecl/detail/asymmetric_fence.hpp"

#include <atomic>
#include <cstddef>

namespace saferecl::detail::hazard_impl {

constexpr std::size_t kBlockRecords = 32;  // records per registry block (minimum)

struct hazard_block {
  hazard_block* next;    // immutable once published
  std::size_t size;      // records in `recs`
  hazard_record* recs;   // cache-line aligned, inside the same allocation
};

struct alignas(kCacheLine) registry_state {
  std::atomic<hazard_block*> head{nullptr};
  std::atomic<std::size_t> records{0};      // R
  std::atomic<std::ptrdiff_t> free{0};      // records in the pool (approximate, hint only)
};

struct alignas(kCacheLine) shared_list_state {
  std::atomic<hazard_retired_node*> head{nullptr};
  std::atomic<std::ptrdiff_t> count{0};     // exact once every push/take has completed
};

// hazard_domain.cpp
extern constinit registry_state g_registry;
extern constinit shared_list_state g_shared;
extern thread_local constinit std::size_t t_shared_retires;
std::ptrdiff_t current_threshold() noexcept;
void push_shared(hazard_retired_node* first, hazard_retired_node* last, std::ptrdiff_t n) noexcept;
hazard_retired_node* take_shared() noexcept;
hazard_retired_node* concat(hazard_retired_node* a, hazard_retired_node* b) noexcept;  // a, then b

using node_access = hazard_node_access;

// Every record ever allocated (blocks are only added, never freed).
template <class F>
void for_each_record(F&& f) noexcept {
  for (hazard_block* b = g_registry.head.load(std::memory_order_acquire); b != nullptr;
       b = b->next)
    for (std::size_t i = 0; i < b->size; ++i) f(b->recs[i]);
}

// hazard_records.cpp
void release_to_pool(hazard_record* r) noexcept;
void release_chain(hazard_record* chain) noexcept;
hazard_record* allocate_block(std::size_t take, std::size_t min_records = kBlockRecords);
hazard_record* obtain(std::size_t need, std::size_t want);

// hazard_reclamation.cpp
void maybe_pass_shared(hazard_thread_state& t) noexcept;
bool leave_to_reclaimer(hazard_thread_state& t) noexcept;

// hazard_thread_exit.cpp
void attach(hazard_thread_state& t) noexcept;

}  // namespace saferecl::detail::hazard_impl
