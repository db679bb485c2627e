// Slow paths of the reference <hazard_pointer>: the record registry and pool, reclamation
// passes, thread exit, and the batch functions. Design: saferecl/hazard_pointer.hpp.
#include "saferecl/hazard_pointer.hpp"

#include "saferecl/detail/asymmetric_fence.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <stdexcept>

namespace saferecl {
namespace detail {
namespace {

// ---------------------------------------------------------------------------------------
// Global state: constant-initialized, trivially destructible, never torn down, so it is
// usable from any static constructor or destructor and from any thread-exit hook.
// ---------------------------------------------------------------------------------------

constexpr std::size_t kBlockRecords = 32;          // records per registry block (minimum)
constexpr unsigned kRefill = kHazardCacheSize / 2;  // extra records claimed for the cache

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

constinit registry_state g_registry;
constinit shared_list_state g_shared;
// Retires this thread made straight to the shared list (it has no private list: exiting or
// exited), so a shared pass can tell that its own deleters retired more.
thread_local constinit std::size_t t_shared_retires = 0;
// NB-H3 only: this thread has allocated its own block.
thread_local constinit bool t_has_own_block = false;

using node_access = hazard_node_access;

// The retired count at which a thread (or the shared list) runs a reclamation pass.
// NB-H10 (conforming): 4 x the records plus a floor of 16,384, a design that trades memory
// for fewer passes; what stays outstanding is still bounded by the record count.
std::ptrdiff_t current_threshold() noexcept {
  auto r = static_cast<std::ptrdiff_t>(g_registry.records.load(std::memory_order_relaxed));
  if (SAFERECL_MUTANT("NB-H10")) return 4 * r + 16'384;
  return std::max(kHazardMinThreshold, 2 * r);
}

// Only mutants take this lock (MH-09, MH-19); the real algorithm has no lock at all.
std::mutex& mutant_mutex() noexcept {
  static std::mutex m;
  return m;
}

// ---------------------------------------------------------------------------------------
// Registry and pool
// ---------------------------------------------------------------------------------------

template <class F>
void for_each_record(F&& f) noexcept {
  for (hazard_block* b = g_registry.head.load(std::memory_order_acquire); b != nullptr;
       b = b->next)
    for (std::size_t i = 0; i < b->size; ++i) f(b->recs[i]);
}

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
hazard_record* allocate_block(std::size_t take, std::size_t min_records = kBlockRecords) {
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
  t.capacity = SAFERECL_MUTANT("NB-H5") ? 0 : kHazardCacheSize;  // NB-H5: nothing is kept
  t.threshold = current_threshold();
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

// ---------------------------------------------------------------------------------------
// Reclamation pass
// ---------------------------------------------------------------------------------------

// Under TSan the StoreLoad ordering is only the hardware's (full_fence() there is no fence:
// see asymmetric_fence.hpp); every happens-before edge TSan needs comes from
// seq_cst/acquire/release operations.
void fence_before_scan() noexcept {
  if (SAFERECL_MUTANT("MH-03")) return;  // and relaxed loads in load_hazard
  if (kTsanBuild || SAFERECL_MUTANT("MH-02"))  // MH-02: the reader's half is gone too
    full_fence();
  else
    heavy_fence();
}

struct scan_mode {
  bool relaxed = SAFERECL_MUTANT("MH-03");
  bool plain = SAFERECL_MUTANT("MH-17");
};

inline const void* load_hazard(const hazard_record& r, scan_mode m) noexcept {
  if (m.plain)  // MH-17: a plain read racing with the owner's atomic stores
    return *reinterpret_cast<const void* const*>(&r.hazard);
  return r.hazard.load(m.relaxed ? std::memory_order_relaxed
                                 : (kTsanBuild ? std::memory_order_seq_cst
                                               : std::memory_order_acquire));
}

// The set of hazards observed after the pass's fence.
class hazard_snapshot {
 public:
  // `t` supplies a reusable buffer when `reuse` (a live thread); otherwise a temporary one.
  hazard_snapshot(hazard_thread_state& t, bool reuse) noexcept : t_(t), reuse_(reuse) {
    if (reuse_) {
      buf_ = t.scratch;
      cap_ = t.scratch_cap;
    }
    for_each_record([&](const hazard_record& r) {
      if (fallback_) return;
      const void* h = load_hazard(r, mode_);
      if (h == nullptr) return;
      if (n_ == cap_ && !grow()) return;
      buf_[n_++] = reinterpret_cast<std::uintptr_t>(h);
    });
    if (!fallback_) std::sort(buf_, buf_ + n_);
  }

  ~hazard_snapshot() {
    if (reuse_) {
      t_.scratch = buf_;
      t_.scratch_cap = cap_;
    } else {
      std::free(buf_);
    }
  }

  hazard_snapshot(const hazard_snapshot&) = delete;
  hazard_snapshot& operator=(const hazard_snapshot&) = delete;

  bool contains(const void* key) const noexcept {
    if (fallback_) {  // no memory for a snapshot: compare with the records directly
      bool found = false;
      for_each_record([&](const hazard_record& r) { found = found || load_hazard(r, mode_) == key; });
      return found;
    }
    return std::binary_search(buf_, buf_ + n_, reinterpret_cast<std::uintptr_t>(key));
  }

 private:
  bool grow() noexcept {
    std::size_t cap = cap_ == 0 ? 64 : 2 * cap_;
    void* p = std::realloc(buf_, cap * sizeof(std::uintptr_t));
    if (p == nullptr) {
      fallback_ = true;
      return false;
    }
    buf_ = static_cast<std::uintptr_t*>(p);
    cap_ = cap;
    return true;
  }

  hazard_thread_state& t_;
  bool reuse_;
  bool fallback_ = false;
  scan_mode mode_{};
  std::uintptr_t* buf_ = nullptr;
  std::size_t cap_ = 0;
  std::size_t n_ = 0;
};

struct split_result {
  hazard_retired_node* doomed = nullptr;
  hazard_retired_node* kept = nullptr;
  hazard_retired_node* kept_tail = nullptr;
  std::ptrdiff_t ndoomed = 0;
  std::ptrdiff_t nkept = 0;
};

// Steps 2-4: fence, snapshot, split. `list` must have been detached before the call.
split_result scan(hazard_retired_node* list, hazard_thread_state& t, bool reuse) noexcept {
  split_result s;
  fence_before_scan();
  hazard_snapshot hazards(t, reuse);
  while (list != nullptr) {
    hazard_retired_node* n = list;
    list = node_access::next(n);
    if (hazards.contains(node_access::key(n))) {
      node_access::next(n) = s.kept;
      if (s.kept == nullptr) s.kept_tail = n;
      s.kept = n;
      ++s.nkept;
    } else {
      node_access::next(n) = s.doomed;
      s.doomed = n;
      ++s.ndoomed;
    }
  }
  return s;
}

void run_deleters(hazard_retired_node* list) noexcept {
  while (list != nullptr) {
    hazard_retired_node* n = list;
    list = node_access::next(n);  // read before the deleter frees n
    node_access::reclaim(n);
  }
}

hazard_retired_node* concat(hazard_retired_node* a, hazard_retired_node* b) noexcept {
  if (a == nullptr) return b;
  if (b == nullptr) return a;
  hazard_retired_node* tail = a;
  while (node_access::next(tail) != nullptr) tail = node_access::next(tail);
  node_access::next(tail) = b;
  return a;
}

// A pass by a live thread over its private list and the shared list.
void pass_alive(hazard_thread_state& t) noexcept {
  std::unique_lock<std::mutex> fork_hazard;  // MH-19: a global lock held for the whole pass
  if (SAFERECL_MUTANT("MH-19")) fork_hazard = std::unique_lock<std::mutex>(mutant_mutex());
  t.in_pass = true;
  for (;;) {
    // MH-30: the private list is read, not detached: what the pass reclaims stays on it
    hazard_retired_node* list = SAFERECL_MUTANT("MH-30") ? t.retired : std::exchange(t.retired, nullptr);
    t.retired_count = 0;
    list = concat(list, take_shared());
    split_result s = scan(list, t, /*reuse=*/true);
    run_deleters(s.doomed);
    if (SAFERECL_MUTANT("MH-08")) {  // objects retired by those deleters skip the check
      run_deleters(std::exchange(t.retired, nullptr));
      t.retired_count = 0;
    }
    if (s.kept != nullptr) {
      node_access::next(s.kept_tail) = t.retired;
      t.retired = s.kept;
      t.retired_count += s.nkept;
    }
    if (SAFERECL_MUTANT("MH-11")) t.retired_count -= s.nkept + s.ndoomed;  // credit drift
    t.threshold = current_threshold();
    if (s.ndoomed == 0) break;
    // Cascade: deleters that retire (the next node of a list, say) put their objects on
    // t.retired during this pass; retired_count now counts them plus what was kept. Scan
    // again at once, generation after generation, instead of leaving each generation for a
    // full threshold of later retires (a 20,000-node chain would need millions). A loop,
    // not recursion; each round reclaimed something, and what stays protected is at most
    // one object per hazard, so a round costs O(records) beyond what it reclaims.
    const bool deleters_retired = t.retired_count > s.nkept && !SAFERECL_MUTANT("MH-31");
    if (t.retired_count < t.threshold && !deleters_retired) break;
  }
  t.in_pass = false;
}

// A pass over the shared list only, by a thread without (usable) private state.
void pass_shared(hazard_thread_state& t) noexcept {
  if (t.in_pass) return;
  t.in_pass = true;
  for (;;) {
    hazard_retired_node* list = take_shared();
    if (list == nullptr) break;
    split_result s = scan(list, t, /*reuse=*/false);
    const std::size_t pushed_before = t_shared_retires;
    run_deleters(s.doomed);
    if (s.kept != nullptr) push_shared(s.kept, s.kept_tail, s.nkept);
    if (s.ndoomed == 0) break;
    // Cascade, as in pass_alive: what this thread's deleters retired went to the shared list.
    const bool deleters_retired = t_shared_retires != pushed_before && !SAFERECL_MUTANT("MH-31");
    if (g_shared.count.load(std::memory_order_relaxed) < current_threshold() && !deleters_retired)
      break;
  }
  t.in_pass = false;
}

void maybe_pass_shared(hazard_thread_state& t) noexcept {
  if (g_shared.count.load(std::memory_order_relaxed) >= current_threshold()) pass_shared(t);
}

// ---------------------------------------------------------------------------------------
// NB-H4 (conforming variant): reclamation only by a background thread. Retiring threads
// hand their private lists to the shared list at their threshold and never run a
// deleter; one process-wide thread takes the shared list every half millisecond. It is
// stopped and joined at exit (before the test's own statics are destroyed) and started
// afresh in a forked child on demand.
// ---------------------------------------------------------------------------------------

std::atomic<bool> g_reclaimer_started{false};
std::atomic<bool> g_reclaimer_stop{false};
std::atomic<pid_t> g_reclaimer_pid{0};
pthread_t g_reclaimer_thread;
thread_local constinit bool t_is_reclaimer = false;

void* reclaimer_main(void*) {
  t_is_reclaimer = true;
  hazard_thread_state& t = hazard_tls;
  attach(t);
  while (!g_reclaimer_stop.load(std::memory_order_acquire)) {
    if (t.phase == hazard_phase::alive &&
        (g_shared.head.load(std::memory_order_relaxed) != nullptr || t.retired != nullptr))
      pass_alive(t);
    ::usleep(500);
  }
  return nullptr;
}

void stop_reclaimer() noexcept {
  if (g_reclaimer_pid.load() != ::getpid()) return;  // not started in this process
  g_reclaimer_stop.store(true, std::memory_order_release);
  ::pthread_join(g_reclaimer_thread, nullptr);
  g_reclaimer_pid.store(0);
}

void reclaimer_fork_child() noexcept {
  g_reclaimer_started.store(false);
  g_reclaimer_stop.store(false);
}

// True once the background thread runs (started here if need be).
bool ensure_reclaimer() noexcept {
  if (g_reclaimer_started.load(std::memory_order_acquire)) return true;
  bool expected = false;
  if (!g_reclaimer_started.compare_exchange_strong(expected, true)) return true;
  static std::atomic<bool> hooks{false};
  if (!hooks.exchange(true)) {
    (void)std::atexit(&stop_reclaimer);
    (void)::pthread_atfork(nullptr, nullptr, &reclaimer_fork_child);
  }
  if (::pthread_create(&g_reclaimer_thread, nullptr, &reclaimer_main, nullptr) != 0) {
    g_reclaimer_started.store(false);
    return false;
  }
  g_reclaimer_pid.store(::getpid());
  return true;
}

// NB-H4: true if `t`'s reclamation was left to the background thread.
bool leave_to_reclaimer(hazard_thread_state& t) noexcept {
  if (!SAFERECL_MUTANT("NB-H4") || t_is_reclaimer || !ensure_reclaimer()) return false;
  if (t.retired != nullptr) {
    hazard_retired_node* tail = t.retired;
    std::ptrdiff_t n = 1;
    for (; node_access::next(tail) != nullptr; tail = node_access::next(tail)) ++n;
    push_shared(std::exchange(t.retired, nullptr), tail, n);
    t.retired_count = 0;
  }
  return true;
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
  if (SAFERECL_MUTANT("MH-13")) {  // the private retired list is simply forgotten
    t.retired = nullptr;
    t.retired_count = 0;
  }
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

// ---------------------------------------------------------------------------------------
// Entry points used by the inline fast paths
// ---------------------------------------------------------------------------------------

hazard_ref hazard_ref_for(hazard_record* r) noexcept {
  std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(r);
  if (!kTsanBuild && current_fence_mode() != fence_mode::asymmetric) bits |= kHazardFenceBit;
  return hazard_ref{bits};
}

hazard_ref hazard_acquire_slow() {
  hazard_thread_state& t = hazard_tls;
  attach(t);
  // NB-H5 (conforming): records are never reused: every hazard pointer gets a fresh one
  // (and the release path abandons it), as a design that never recycles slots would.
  if (SAFERECL_MUTANT("NB-H5")) return hazard_ref_for(allocate_block(1, 1));
  const bool cache = t.phase == hazard_phase::alive && t.cached == 0;
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
  hazard_thread_state& t = hazard_tls;
  if (t.phase == hazard_phase::uninit) attach(t);
  if (SAFERECL_MUTANT("NB-H5")) return;  // abandoned: in use forever, its hazard null
  if (t.cached < t.capacity) {
    t.cache[t.cached++] = h;
    return;
  }
  release_to_pool(hazard_rec(h));
}

void hazard_retire_overflow(hazard_thread_state& t) noexcept {
  if (!t.in_pass && !leave_to_reclaimer(t)) pass_alive(t);
}

void hazard_retire_slow(hazard_retired_node* n) noexcept {
  hazard_thread_state& t = hazard_tls;
  attach(t);
  if (t.phase == hazard_phase::alive) {
    node_access::next(n) = t.retired;
    t.retired = n;
    if (++t.retired_count >= t.threshold) hazard_retire_overflow(t);
    return;
  }
  push_shared(n, n, 1);
  ++t_shared_retires;
  if (!leave_to_reclaimer(t)) maybe_pass_shared(t);
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

// MH-09: retire under a non-recursive lock that the pass keeps while the deleters run; a
// deleter that retires deadlocks.
void hazard_retire_locked(hazard_retired_node* n) noexcept {
  std::lock_guard<std::mutex> lock(mutant_mutex());
  hazard_thread_state& t = hazard_tls;
  if (t.phase != hazard_phase::alive) {
    push_shared(n, n, 1);
    return;
  }
  node_access::next(n) = t.retired;
  t.retired = n;
  if (++t.retired_count >= t.threshold) pass_alive(t);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------
// C++29 batches (P3428R4)
// ---------------------------------------------------------------------------------------

namespace detail {
namespace {

// MH-32: every element gets a new hazard pointer, so an owning one loses its epoch.
// MH-33: elements are filled one by one, so a failure part-way leaves earlier ones owning.
void mutant_batch_one_by_one(std::span<hazard_pointer> batch, bool replace_owning) {
  for (hazard_pointer& h : batch)
    if (replace_owning || h.empty()) h = make_hazard_pointer();
}

// MH-36: the clear stops at the first empty element, as if it marked the end of the batch.
void mutant_clear_until_empty(std::span<hazard_pointer> batch) noexcept {
  for (hazard_pointer& h : batch) {
    if (h.empty()) return;
    h = hazard_pointer{};
  }
}

// MH-37: the batch re-initializes every record it touches, so an owning element's epoch ends.
void mutant_reset_owning(std::span<hazard_pointer> batch) noexcept {
  for (hazard_pointer& h : batch)
    if (!h.empty()) h.reset_protection();
}

// MH-38: an allocation failure is swallowed: the call returns with the empty elements empty.
bool mutant_chain_or_nothing(std::size_t n, hazard_record*& chain) noexcept {
  try {
    chain = hazard_acquire_chain(n);
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

// MH-39: the records are taken in a noexcept helper, so an allocation failure terminates.
hazard_record* mutant_chain_or_terminate(std::size_t n) noexcept { return hazard_acquire_chain(n); }

}  // namespace
}  // namespace detail

void make_hazard_pointer_batch(std::span<hazard_pointer> batch) {
  if (SAFERECL_MUTANT("MH-32") || SAFERECL_MUTANT("MH-33"))
    return detail::mutant_batch_one_by_one(batch, SAFERECL_MUTANT("MH-32"));
  std::size_t need = 0;
  for (const hazard_pointer& h : batch) need += h.empty() ? 1 : 0;
  if (SAFERECL_MUTANT("MH-37")) detail::mutant_reset_owning(batch);
  if (need == 0) return;
  detail::hazard_record* chain;
  if (SAFERECL_MUTANT("MH-38")) {
    if (!detail::mutant_chain_or_nothing(need, chain)) return;
  } else if (SAFERECL_MUTANT("MH-39")) {
    chain = detail::mutant_chain_or_terminate(need);
  } else {
    chain = detail::hazard_acquire_chain(need);  // throws: no change
  }
  for (hazard_pointer& h : batch) {
    if (!h.empty()) continue;
    detail::hazard_record* r = chain;
    chain = chain->chain;
    h.rec_ = detail::hazard_ref_for(r);
  }
}

void clear_hazard_pointer_batch(std::span<hazard_pointer> batch) noexcept {
  if (SAFERECL_MUTANT("MH-36")) return detail::mutant_clear_until_empty(batch);
  for (hazard_pointer& h : batch) {
    if (h.empty()) continue;
    detail::hazard_release(std::exchange(h.rec_, detail::hazard_ref{}));
  }
}

}  // namespace saferecl
