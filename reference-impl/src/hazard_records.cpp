// Hazard records: the push-only registry of record blocks (never freed, readable by any
// thread at any time) and the pool of free records that make_hazard_pointer claims from when
// its thread's cache is empty. Design: saferecl/hazard_pointer.hpp, "Data structures".
#include "hazard_internal.hpp"

#include <algorithm>
#include <memory>
#include <new>

namespace saferecl::detail {

using namespace hazard_impl;

namespace hazard_impl {

// ---------------------------------------------------------------------------------------
// Registry and pool
// ---------------------------------------------------------------------------------------

// Claims up to `want` free records (CAS in_use false -> true); returns them chained.
hazard_record* claim_from_pool(std::size_t want, std::size_t& got) noexcept {
  got = 0;
  hazard_record* chain = nullptr;
  if (g_registry.free.load(std::memory_order_relaxed) <= 0) return nullptr;
  for (hazard_block* b = g_registry.head.load(std::memory_order_acquire);
       b != nullptr && got < want; b = b->next) {
    for (std::size_t i = 0; i < b->size && got < want; ++i) {
      hazard_record& r = b->recs[i];
      if (r.in_use.load(std::memory_order_relaxed)) continue;
      bool expected = false;
      if (r.in_use.compare_exchange_strong(expected, true, std::memory_order_acquire,
                                           std::memory_order_relaxed)) {
        r.chain = chain;
        chain = &r;
        ++got;
      }
    }
  }
  if (got != 0)
    g_registry.free.fetch_sub(static_cast<std::ptrdiff_t>(got), std::memory_order_relaxed);
  return chain;
}

void release_to_pool(hazard_record* r) noexcept {
  r->in_use.store(false, std::memory_order_release);
  g_registry.free.fetch_add(1, std::memory_order_relaxed);
}

void release_chain(hazard_record* chain) noexcept {
  while (chain != nullptr) {
    hazard_record* next = chain->chain;
    release_to_pool(chain);
    chain = next;
  }
}

// Publishes a new block at the head of the registry's list, where every reclamation pass
// reads hazards from. Blocks are only ever added, by a CAS: threads growing the registry at
// once must each see the other's block as their `next`.
void link_block(hazard_block* block) noexcept {
  hazard_block* head = g_registry.head.load(std::memory_order_relaxed);
  if (SAFERECL_MUTANT("MH-61")) {  // a load and a store: a block linked meanwhile is lost
    block->next = head;
    SAFERECL_MUTANT_WIDEN_WINDOW();
    g_registry.head.store(block, std::memory_order_release);
    return;
  }
  do {
    block->next = head;
  } while (!g_registry.head.compare_exchange_weak(head, block, std::memory_order_release,
                                                  std::memory_order_relaxed));
}

// Allocates and publishes a block of max(kBlockRecords, take) records, the first `take` of
// which are returned (chained) already owned by the caller. Throws bad_alloc.
hazard_record* allocate_block(std::size_t take, std::size_t min_records) {
  const std::size_t n = std::max(min_records, take);
  // Plain operator new (not the aligned form), so the usual fault-injection replacement
  // of operator new(size_t) reaches this allocation; aligned by hand. Never freed.
  void* raw = ::operator new(sizeof(hazard_block) + kCacheLine + n * sizeof(hazard_record));
  auto* block = ::new (raw) hazard_block{nullptr, n, nullptr};
  void* p = static_cast<char*>(raw) + sizeof(hazard_block);
  std::size_t space = kCacheLine + n * sizeof(hazard_record);
  p = std::align(alignof(hazard_record), n * sizeof(hazard_record), p, space);
  block->recs = static_cast<hazard_record*>(p);
  hazard_record* chain = nullptr;
  for (std::size_t i = 0; i < n; ++i) {
    hazard_record* r = ::new (static_cast<void*>(block->recs + i)) hazard_record{};
    if (i < take) {
      r->in_use.store(true, std::memory_order_relaxed);
      r->chain = chain;
      chain = r;
    }
  }
  link_block(block);
  g_registry.records.fetch_add(n, std::memory_order_relaxed);
  if (n > take)
    g_registry.free.fetch_add(static_cast<std::ptrdiff_t>(n - take), std::memory_order_relaxed);
  return chain;
}

// How many records a new block holds at least. NB-H7 (conforming): storage doubles, each
// new block as large as all earlier ones together, like a slot array reallocated to twice
// its size when full: the one step past 1024 records falls in whichever wave of threads
// first holds more at once.
std::size_t new_block_records() noexcept {
  if (!SAFERECL_MUTANT("NB-H7")) return kBlockRecords;
  return std::max(kBlockRecords, g_registry.records.load(std::memory_order_relaxed));
}

// `want` records if the pool has them, at least `need` (allocating); all or nothing.
hazard_record* obtain(std::size_t need, std::size_t want) {
  std::size_t got = 0;
  hazard_record* chain = claim_from_pool(want, got);
  if (got >= need) return chain;
  hazard_record* fresh;
  try {
    fresh = allocate_block(want - got, new_block_records());
  } catch (...) {
    release_chain(chain);
    throw;
  }
  hazard_record* tail = fresh;
  while (tail->chain != nullptr) tail = tail->chain;
  tail->chain = chain;
  return fresh;
}

}  // namespace hazard_impl

hazard_ref hazard_ref_for(hazard_record* r) noexcept {
  std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(r);
  if (!kTsanBuild && current_fence_mode() != fence_mode::asymmetric) bits |= kHazardFenceBit;
  return hazard_ref{bits};
}

// MH-28: protection kept per object rather than per holder: ending one holder's epoch on an
// object (reset, destroy, clear) ends every holder's epoch on it.
void hazard_unprotect_everywhere(const void* p) noexcept {
  if (p == nullptr) return;
  for_each_record([p](hazard_record& r) {
    const void* expected = p;
    r.hazard.compare_exchange_strong(expected, nullptr, std::memory_order_release,
                                     std::memory_order_relaxed);
  });
}

}  // namespace saferecl::detail
