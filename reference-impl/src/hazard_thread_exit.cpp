// Thread lifecycle: a thread's first use arms a pthread key (created lock-free, so a fork()
// at any moment leaves the child a usable key); its destructor marks the thread's state dead
// and hands the cache and the private retired list back to the domain. The design has no lock
// and no thread of its own, so fork() needs no handler here (NB-H4's background reclaimer has
// its own, in hazard_reclamation.cpp). Design: saferecl/hazard_pointer.hpp, "Thread exit".
#include "hazard_internal.hpp"

#include <pthread.h>

#include <cstdlib>
#include <utility>

namespace saferecl::detail {

using namespace hazard_impl;

namespace {

// ---------------------------------------------------------------------------------------
// Thread lifecycle
// ---------------------------------------------------------------------------------------

void on_thread_exit(void*) noexcept;

// The pthread key whose destructor hands a thread's state back (key + 1; 0 = not yet
// created). Published by CAS rather than a function-local static: a static's init guard
// held by another thread at fork() time would hang the child forever.
std::atomic<unsigned long> g_exit_key{0};

bool exit_key(pthread_key_t& key) noexcept {
  unsigned long k = g_exit_key.load(std::memory_order_acquire);
  if (k == 0) {
    pthread_key_t fresh;
    if (::pthread_key_create(&fresh, &on_thread_exit) != 0) return false;
    const unsigned long mine = static_cast<unsigned long>(fresh) + 1;
    if (g_exit_key.compare_exchange_strong(k, mine, std::memory_order_acq_rel,
                                           std::memory_order_acquire))
      k = mine;
    else
      ::pthread_key_delete(fresh);  // another thread won; use its key
  }
  key = static_cast<pthread_key_t>(k - 1);
  return true;
}

}  // namespace

namespace hazard_impl {

void attach(hazard_thread_state& t) noexcept {
  if (t.phase == hazard_phase::alive) return;
  if (t.phase == hazard_phase::dead) {
    if (!SAFERECL_MUTANT("MH-15")) return;
    // MH-15: no "destroyed" flag honoured: the state is lazily rebuilt after its teardown,
    // and nothing will ever tear it down again.
  } else {
    // Decide the fence mode (membarrier registration, a system call) once per process
    // here, off the protect and reclaim paths.
    if constexpr (!kTsanBuild) (void)current_fence_mode();
    pthread_key_t key;
    if (!exit_key(key) || ::pthread_setspecific(key, &t) != 0) {
      t.phase = hazard_phase::dead;  // cannot see thread exit: use the shared path only
      return;
    }
  }
  t.phase = hazard_phase::alive;
  // NB-H5, NB-H51 (conforming): no thread cache; every record goes back to the pool (NB-H51)
  // or is abandoned (NB-H5).
  t.capacity = SAFERECL_MUTANT("NB-H5") || SAFERECL_MUTANT("NB-H51") ? 0 : kHazardCacheSize;
  t.threshold = current_threshold();
}

}  // namespace hazard_impl

namespace {

// MH-71: the exiting thread appends the shared list behind its own with a load and a
// store, as if exits were serialized: it reads the head, walks its own list to the tail
// and links the head there, then stores its list as the new head. A pass that takes the
// shared list meanwhile finds its objects handed over again (reclaimed twice); a push
// meanwhile is lost.
void hand_over_by_load_and_store(hazard_thread_state& t) noexcept {
  hazard_retired_node* const head = g_shared.head.load(std::memory_order_acquire);
  hazard_retired_node* tail = t.retired;
  std::ptrdiff_t n = 1;
  for (; node_access::next(tail) != nullptr; tail = node_access::next(tail)) {
    ++n;
    SAFERECL_MUTANT_WIDEN_WINDOW();  // per node: a longer list, a wider window
  }
  node_access::next(tail) = head;
  g_shared.head.store(std::exchange(t.retired, nullptr), std::memory_order_release);
  g_shared.count.fetch_add(n, std::memory_order_relaxed);
  t.retired_count = 0;
  std::free(std::exchange(t.scratch, nullptr));
  t.scratch_cap = 0;
}

// Hand the cache and the retired list of `t` back to the shared domain.
void hand_back(hazard_thread_state& t) noexcept {
  if (SAFERECL_MUTANT("MH-60")) {
    // MH-60: the whole cache array goes back, not its filled prefix: a slot above `cached`
    // still names a record taken out since, perhaps one a live hazard pointer owns. A
    // thread that only ever refilled its cache has no such slot; one that reused has.
    for (hazard_ref& slot : t.cache)
      if (static_cast<std::uintptr_t>(slot) != 0)
        release_to_pool(hazard_rec(std::exchange(slot, hazard_ref{})));
    t.cached = 0;
  }
  while (t.cached != 0) release_to_pool(hazard_rec(t.cache[--t.cached]));
  // and the batch awaiting a fence, and the objects whose deleters were deferred (scanned
  // again where they go: cheaper to reason about than running deleters at thread exit)
  t.retired = concat(std::exchange(t.pending, nullptr), t.retired);
  t.retired = concat(std::exchange(t.reclaimable, nullptr), t.retired);
  if (SAFERECL_MUTANT("MH-13")) {  // the private retired list is simply forgotten
    t.retired = nullptr;
    t.retired_count = 0;
  }
  if (t.retired != nullptr && SAFERECL_MUTANT("MH-71")) return hand_over_by_load_and_store(t);
  if (t.retired != nullptr) {
    hazard_retired_node* tail = t.retired;
    std::ptrdiff_t n = 1;
    while (node_access::next(tail) != nullptr) {
      tail = node_access::next(tail);
      ++n;
    }
    push_shared(std::exchange(t.retired, nullptr), tail, n);
    t.retired_count = 0;
  }
  std::free(std::exchange(t.scratch, nullptr));
  t.scratch_cap = 0;
}

void on_thread_exit(void*) noexcept {
  hazard_thread_state& t = hazard_tls;
  if (SAFERECL_MUTANT("MH-10")) {
    // Single-shot drain: hand back and reclaim while still "alive", then declare the state
    // dead; whatever the deleters retired or cached meanwhile is stranded.
    hand_back(t);
    maybe_pass_shared(t);
    t.phase = hazard_phase::dead;
    t.capacity = 0;
    return;
  }
  t.phase = hazard_phase::dead;  // from here on, re-entrant calls use the shared path
  t.capacity = 0;
  t.threshold = 0;
  hand_back(t);
  // NB-H6 (conforming): an exiting thread frees nothing; later passes of other threads
  // take what it handed back, as in designs that never reclaim at thread or process exit.
  if (!SAFERECL_MUTANT("NB-H6") && !leave_to_reclaimer(t)) maybe_pass_shared(t);
}

}  // namespace

}  // namespace saferecl::detail
