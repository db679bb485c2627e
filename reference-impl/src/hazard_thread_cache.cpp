// The per-thread record cache's slow paths: make_hazard_pointer when the cache is empty
// (refilled from the pool or a new block), ~hazard_pointer when it is full, and the n records
// of a batch, all or nothing. The fast paths are inline in saferecl/detail/hazard_domain.hpp.
#include "hazard_internal.hpp"

#include <stdexcept>

namespace saferecl::detail {

using namespace hazard_impl;

namespace {

constexpr unsigned kRefill = kHazardCacheSize / 2;  // extra records claimed for the cache

// NB-H3 only: this thread has allocated its own block.
thread_local constinit bool t_has_own_block = false;

}  // namespace

hazard_ref hazard_acquire_slow() {
  hazard_thread_state& t = hazard_tls;
  attach(t);
  // NB-H5 (conforming): records are never reused: every hazard pointer gets a fresh one
  // (and the release path abandons it), as a design that never recycles slots would.
  if (SAFERECL_MUTANT("NB-H5")) return hazard_ref_for(allocate_block(1, 1));
  // NB-H51 (conforming): no thread cache, one record from the shared pool per hazard pointer.
  const bool cache = t.phase == hazard_phase::alive && t.cached == 0 && !SAFERECL_MUTANT("NB-H51");
  hazard_record* chain;
  if (SAFERECL_MUTANT("NB-H3") && cache && !t_has_own_block) {
    // NB-H3 (conforming): a thread's first hazard pointer allocates a block of records of
    // its own (its cache), whatever the pool holds, like a per-thread slot array.
    chain = allocate_block(1 + kRefill, 1 + kRefill);
    t_has_own_block = true;
  } else {
    chain = obtain(1, cache ? 1 + kRefill : 1);
  }
  hazard_record* r = chain;
  for (chain = chain->chain; chain != nullptr; chain = chain->chain) {
    if (SAFERECL_MUTANT("MH-14")) chain->home = &t;
    t.cache[t.cached++] = hazard_ref_for(chain);
  }
  if (SAFERECL_MUTANT("MH-14")) r->home = &t;
  return hazard_ref_for(r);
}

void hazard_release_slow(hazard_ref h) noexcept {
  if (h == hazard_ref{}) return;  // an empty holder's destruction (hazard_destroy)
  hazard_thread_state& t = hazard_tls;
  if (t.phase == hazard_phase::uninit) attach(t);
  if (SAFERECL_MUTANT("NB-H5")) return;  // abandoned: in use forever, its hazard null
  if (t.cached < t.capacity) {
    t.cache[t.cached++] = h;
    return;
  }
  release_to_pool(hazard_rec(h));
}

// NB-H2 (conforming): one allocation of its own per record, as a design that keeps one
// heap node per hazard pointer would make; all or nothing, like the real path.
static hazard_record* acquire_chain_one_allocation_each(std::size_t n) {
  hazard_record* chain = nullptr;
  try {
    for (std::size_t i = 0; i < n; ++i) {
      hazard_record* r = allocate_block(1, 1);
      r->chain = chain;
      chain = r;
    }
  } catch (...) {
    release_chain(chain);
    throw;
  }
  return chain;
}

hazard_record* hazard_acquire_chain(std::size_t n) {
  hazard_thread_state& t = hazard_tls;
  attach(t);
  if (SAFERECL_MUTANT("NB-H2")) return acquire_chain_one_allocation_each(n);
  hazard_record* chain = nullptr;
  std::size_t have = 0;
  while (have < n && t.cached != 0) {
    hazard_record* r = hazard_rec(t.cache[--t.cached]);
    r->chain = chain;
    chain = r;
    ++have;
  }
  if (have == n) return chain;
  hazard_record* more;
  try {
    more = obtain(n - have, n - have);
  } catch (...) {
    for (; chain != nullptr; chain = chain->chain) t.cache[t.cached++] = hazard_ref_for(chain);
    // MH-34: the failure is reported as the library's own exhaustion error, not bad_alloc
    if (SAFERECL_MUTANT("MH-34")) throw std::runtime_error("hazard pointer records exhausted");
    throw;
  }
  hazard_record* tail = more;
  while (tail->chain != nullptr) tail = tail->chain;
  tail->chain = chain;
  return more;
}


// MH-14: the record goes back to the cache of the thread that first took it from the pool,
// written from this thread without synchronization (and even if that thread has exited).
void hazard_release_to_home(hazard_ref h) noexcept {
  hazard_record* r = hazard_rec(h);
  hazard_thread_state* home = r->home != nullptr ? r->home : &hazard_tls;
  SAFERECL_MUTANT_WIDEN_WINDOW();
  if (home->cached < home->capacity) {
    home->cache[home->cached++] = h;
    return;
  }
  release_to_pool(r);
}

}  // namespace saferecl::detail
