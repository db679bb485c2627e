// Reclamation: the pass (fence, hazard snapshot, one walk that keeps the protected and dooms
// the rest, cascade) by a live thread over its private list and the shared list, the pass
// over the shared list alone, the retire slow paths that trigger them, the cascade a deferred
// deleter starts, and the NB-H4 variant's background reclaimer (stopped at exit, restarted in
// a forked child). Design: saferecl/hazard_pointer.hpp, "Reclamation pass" and "Deleters run
// one per retire".
#include "background_thread.hpp"
#include "hazard_internal.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace saferecl::detail {

using namespace hazard_impl;

namespace {

// Only mutants take this lock (MH-09, MH-19); the real algorithm has no lock at all.
std::mutex& mutant_mutex() noexcept {
  static std::mutex m;
  return m;
}

// ---------------------------------------------------------------------------------------
// Reclamation pass
// ---------------------------------------------------------------------------------------

// Step 2, ordering: a batch is stamped once its last object was retired (a full fence, then
// the number of the first heavy fence to begin after it), and scanned only after a heavy
// fence numbered at or above its stamp has completed, whichever thread issued it.
//
// MH-72: a heavy fence numbered one below the stamp -- one that began before the stamp,
// perhaps before the batch's last retire -- is taken as covering the batch.
std::uint64_t first_covering_fence(std::uint64_t stamp) noexcept {
  return SAFERECL_MUTANT("MH-72") ? stamp - 1 : stamp;
}

std::uint64_t stamp_batch() noexcept {
  if (SAFERECL_MUTANT("MH-03")) return 0;  // no fence at all (and relaxed loads in load_hazard)
  return heavy_fence_stamp();
}

// True if a heavy fence that covers a batch stamped `stamp` has begun (another thread's: it
// is in progress or done).
bool fence_covers(std::uint64_t stamp) noexcept {
  return heavy_fence_begun(first_covering_fence(stamp));
}

// Under TSan (and for MH-02) the pass's only fence is the stamp's full fence, which under
// TSan orders only the hardware (see asymmetric_fence.hpp); every happens-before edge TSan
// needs comes from seq_cst/acquire/release operations.
// NB-H51 publishes with seq_cst exchanges and scans with seq_cst loads: the stamp's full
// fence is all the pass needs.
void fence_before_scan(std::uint64_t stamp) noexcept {
  if (SAFERECL_MUTANT("MH-03") || SAFERECL_MUTANT("NB-H51")) return;
  if (kTsanBuild || SAFERECL_MUTANT("MH-02")) return;  // MH-02: the reader's half is gone too
  heavy_fence_since(first_covering_fence(stamp));
}

struct scan_mode {
  bool relaxed = SAFERECL_MUTANT("MH-03");
  bool plain = SAFERECL_MUTANT("MH-17");
  bool sc = kTsanBuild || SAFERECL_MUTANT("NB-H51");
};

inline const void* load_hazard(const hazard_record& r, scan_mode m) noexcept {
  if (m.plain)  // MH-17: a plain read racing with the owner's atomic stores
    return *reinterpret_cast<const void* const*>(&r.hazard);
  return r.hazard.load(m.relaxed ? std::memory_order_relaxed
                                 : (m.sc ? std::memory_order_seq_cst : std::memory_order_acquire));
}

// MH-95: the passes of live threads are serialized by a process-wide lock and share one
// scratch buffer for their snapshots, whose count a snapshot clears when it ends; a pass that
// has waited kPassLockPatience for the lock presumes its holder stuck and proceeds without it.
// Plain fields: the lock is what should guard them.
struct shared_scratch {
  std::uintptr_t* buf = nullptr;
  std::size_t cap = 0;
  std::size_t n = 0;
};
shared_scratch g_mutant_scratch;
std::mutex g_mutant_pass_lock;
constexpr auto kPassLockPatience = std::chrono::milliseconds(2);

// Polls: try_lock_for's clock-based wait (pthread_mutex_clocklock) is not one TSan intercepts.
std::unique_lock<std::mutex> lock_or_give_up() noexcept {
  std::unique_lock<std::mutex> lock(g_mutant_pass_lock, std::try_to_lock);
  const auto deadline = std::chrono::steady_clock::now() + kPassLockPatience;
  while (!lock.owns_lock() && std::chrono::steady_clock::now() < deadline) {
    ::usleep(50);
    (void)lock.try_lock();
  }
  return lock;
}

// The set of hazards observed after the pass's fence.
class hazard_snapshot {
 public:
  // `t` supplies a reusable buffer when `reuse` (a live thread); otherwise a temporary one.
  hazard_snapshot(hazard_thread_state& t, bool reuse) noexcept
      : t_(t), reuse_(reuse), shared_(reuse && SAFERECL_MUTANT("MH-95")) {
    if (shared_) {
      buf_ = g_mutant_scratch.buf;
      cap_ = g_mutant_scratch.cap;
    } else if (reuse_) {
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
    if (shared_) g_mutant_scratch = {buf_, cap_, n_};
  }

  ~hazard_snapshot() {
    if (shared_) {
      g_mutant_scratch.n = 0;
    } else if (reuse_) {
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
    if (shared_)
      return std::binary_search(g_mutant_scratch.buf, g_mutant_scratch.buf + g_mutant_scratch.n,
                                reinterpret_cast<std::uintptr_t>(key));
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
  bool shared_;  // MH-95
  bool fallback_ = false;
  scan_mode mode_{};
  std::uintptr_t* buf_ = nullptr;
  std::size_t cap_ = 0;
  std::size_t n_ = 0;
};

struct scan_result {
  hazard_retired_node* kept = nullptr;
  hazard_retired_node* kept_tail = nullptr;
  std::ptrdiff_t nkept = 0;
  hazard_retired_node* doomed = nullptr;  // unprotected, deleters not yet run (`defer` only)
  std::ptrdiff_t nreclaimed = 0;          // unprotected: reclaimed, or doomed
};

// What a pass scans: detached lists, walked one after the other (linking them would walk the
// first to its tail, a pointer chase as long as the scan's own), and the stamp its heavy
// fence must reach (the latest of the lists' stamps).
struct batch {
  hazard_retired_node* lists[2] = {};
  std::uint64_t stamp = 0;

  bool empty() const noexcept { return lists[0] == nullptr && lists[1] == nullptr; }
};

// Steps 2-5: fence, snapshot, then one walk over the batch that keeps every object a hazard
// protects and either runs the deleter of every other one, or (`defer`) links it onto the
// doomed list for later; no deleter runs before the snapshot is complete. The batch's lists
// must have been detached and stamped before the call.
scan_result scan_and_reclaim(const batch& b, hazard_thread_state& t, bool reuse, bool defer) noexcept {
  scan_result s;
  fence_before_scan(b.stamp);
  hazard_snapshot hazards(t, reuse);
  for (hazard_retired_node* list : b.lists) {
    while (list != nullptr) {
      hazard_retired_node* n = list;
      list = node_access::next(n);  // read before the deleter frees n
      // The walk chases pointers through a list larger than L1 (measured: 43% of this
      // function's samples on that load): fetch the next node while this one is handled.
      __builtin_prefetch(list);
      if (hazards.contains(node_access::key(n))) {
        node_access::next(n) = s.kept;
        if (s.kept == nullptr) s.kept_tail = n;
        s.kept = n;
        ++s.nkept;
      } else {
        ++s.nreclaimed;
        if (defer) {
          node_access::next(n) = s.doomed;
          s.doomed = n;
        } else {
          node_access::reclaim(n);
        }
      }
    }
  }
  return s;
}

// Every object of `list`, unchecked: deferred deleters (and, for MH-08, a list never scanned).
void run_deleters(hazard_retired_node* list) noexcept {
  while (list != nullptr) {
    hazard_retired_node* n = list;
    list = node_access::next(n);  // read before the deleter frees n
    node_access::reclaim(n);
  }
}

// Step 1 (after the detach): `fresh` is stamped. With `may_wait` (a pass's first round) it
// waits as the pending batch if there is none, and the pass scans nothing; if a heavy fence
// of another thread covers the pending batch, the pass scans that one alone (once the fence
// completed) and `fresh` waits in its place; otherwise the pass scans both after a fence of
// its own.
batch take_batch(hazard_thread_state& t, hazard_retired_node* fresh, bool may_wait) noexcept {
  const std::uint64_t stamp = stamp_batch();
  if (may_wait && t.pending == nullptr) {
    t.pending = fresh;
    t.pending_stamp = stamp;
    return {};
  }
  if (may_wait && fence_covers(t.pending_stamp)) {
    const batch covered{{std::exchange(t.pending, fresh)}, t.pending_stamp};
    t.pending_stamp = stamp;
    return covered;
  }
  return {{fresh, std::exchange(t.pending, nullptr)}, stamp};
}

// The doomed objects of a pass wait, one deleter per later retire. Those of an earlier pass
// that still wait (`waiting`) run now, so that no more than one pass's output ever waits
// (saferecl/hazard_pointer.hpp, "Bound on outstanding"). True if those deleters retired.
bool defer_deleters(hazard_thread_state& t, hazard_retired_node*& waiting,
                    hazard_retired_node* doomed) noexcept {
  const std::ptrdiff_t queued = t.retired_count;
  if (doomed != nullptr) run_deleters(std::exchange(waiting, doomed));
  return t.retired_count != queued;
}

// Why a pass runs, which decides whether its batch may wait and its deleters are deferred.
enum class pass_cause {
  threshold,         // the private list reached the threshold: the batch may wait, and the
                     // deleters of the first round wait on `t.reclaimable`
  deleters_retired,  // a deferred deleter retired: the deleters still deferred run, and then
                     // rounds scan and reclaim at once until no deleter retires any more
  reclaimer,         // NB-H4's background thread, which never retires: reclaim at once
};

// A pass by a live thread over its private list and the shared list.
void pass_alive(hazard_thread_state& t, pass_cause cause) noexcept {
  std::unique_lock<std::mutex> fork_hazard;  // MH-19: a global lock held for the whole pass
  if (SAFERECL_MUTANT("MH-19")) fork_hazard = std::unique_lock<std::mutex>(mutant_mutex());
  std::unique_lock<std::mutex> pass_lock;  // MH-95: given up after kPassLockPatience
  if (SAFERECL_MUTANT("MH-95")) pass_lock = lock_or_give_up();
  t.in_pass = true;
  // Taken off the thread for the pass: a deleter run in it retires without running another.
  hazard_retired_node* waiting = std::exchange(t.reclaimable, nullptr);
  if (cause == pass_cause::deleters_retired) run_deleters(std::exchange(waiting, nullptr));
  // NB-H1, NB-H51 (conforming variants): no batch waits; every pass scans what it took at once.
  const bool eager = SAFERECL_MUTANT("NB-H51");
  bool may_wait = cause == pass_cause::threshold && !SAFERECL_MUTANT("NB-H1") && !eager;
  // Under TSan deleters run as the scan finds them: TSan forgets old accesses (its shadow is
  // reset as threads use up their epochs), so a deleter run thousands of retires after the
  // scan can find a racing reader's writes already forgotten (mutant MH-03 survived so).
  // NB-H11 (conforming variant): deferred under TSan too.
  // NB-H51: never deferred, the deleters run in the pass that found them unprotected.
  bool defer = cause == pass_cause::threshold && (!kTsanBuild || SAFERECL_MUTANT("NB-H11")) && !eager;
  for (;; may_wait = false, defer = false) {
    // MH-30: the private list is read, not detached: what the pass reclaims stays on it
    hazard_retired_node* list = SAFERECL_MUTANT("MH-30") ? t.retired : std::exchange(t.retired, nullptr);
    t.retired_count = 0;
    list = concat(take_shared(), list);  // the shared list is walked: the shorter one, mostly
    const batch b = take_batch(t, list, may_wait);
    if (b.empty()) {
      t.threshold = current_threshold();
      break;
    }
    const scan_result s = scan_and_reclaim(b, t, /*reuse=*/true, defer);
    const bool deferred_retired = defer && defer_deleters(t, waiting, s.doomed);
    if (SAFERECL_MUTANT("MH-08")) {  // objects retired by those deleters skip the check
      run_deleters(std::exchange(t.retired, nullptr));
      t.retired_count = 0;
    }
    if (s.kept != nullptr) {
      node_access::next(s.kept_tail) = t.retired;
      t.retired = s.kept;
      t.retired_count += s.nkept;
    }
    if (SAFERECL_MUTANT("MH-11")) t.retired_count -= s.nkept + s.nreclaimed;  // credit drift
    t.threshold = current_threshold();
    if (s.nreclaimed == 0) break;
    // Cascade: deleters that retire (the next node of a list, say) put their objects on
    // t.retired during this pass; retired_count now counts them plus what was kept. Scan
    // again at once, generation after generation, instead of leaving each generation for a
    // full threshold of later retires (a 20,000-node chain would need millions). A loop,
    // not recursion; each round reclaimed something, and what stays protected is at most
    // one object per hazard, so a round costs O(records) beyond what it reclaims. (A round
    // that deferred its deleters ran only those of an earlier pass.)
    const bool deleters_retired =
        (defer ? deferred_retired : t.retired_count > s.nkept) && !SAFERECL_MUTANT("MH-31");
    if (t.retired_count < t.threshold && !deleters_retired) break;
  }
  t.reclaimable = waiting;
  t.in_pass = false;
}

// A pass over the shared list only, by a thread without (usable) private state.
void pass_shared(hazard_thread_state& t) noexcept {
  if (t.in_pass) return;
  t.in_pass = true;
  for (;;) {
    hazard_retired_node* list = take_shared();
    if (list == nullptr) break;
    const std::size_t pushed_before = t_shared_retires;
    const scan_result s = scan_and_reclaim({{list}, stamp_batch()}, t, /*reuse=*/false, /*defer=*/false);
    if (s.kept != nullptr) push_shared(s.kept, s.kept_tail, s.nkept);
    if (s.nreclaimed == 0) break;
    // Cascade, as in pass_alive: what this thread's deleters retired went to the shared list.
    const bool deleters_retired = t_shared_retires != pushed_before && !SAFERECL_MUTANT("MH-31");
    if (g_shared.count.load(std::memory_order_relaxed) < current_threshold() && !deleters_retired)
      break;
  }
  t.in_pass = false;
}

}  // namespace

namespace hazard_impl {

void maybe_pass_shared(hazard_thread_state& t) noexcept {
  if (g_shared.count.load(std::memory_order_relaxed) >= current_threshold()) pass_shared(t);
}

}  // namespace hazard_impl

namespace {

// ---------------------------------------------------------------------------------------
// NB-H4 (conforming variant): reclamation only by a background thread. Retiring threads
// hand their private lists to the shared list at their threshold and never run a
// deleter; one process-wide thread takes the shared list every half millisecond. It is
// stopped and joined at exit (before the test's own statics are destroyed) and started
// afresh in a forked child on demand.
// ---------------------------------------------------------------------------------------

void* reclaimer_main(void*);
void stop_reclaimer() noexcept;
void forget_reclaimer() noexcept;
constinit background_thread g_reclaimer{&reclaimer_main, &stop_reclaimer, &forget_reclaimer};
void stop_reclaimer() noexcept { g_reclaimer.stop(); }
void forget_reclaimer() noexcept { g_reclaimer.forget(); }
thread_local constinit bool t_is_reclaimer = false;

void* reclaimer_main(void*) {
  t_is_reclaimer = true;
  hazard_thread_state& t = hazard_tls;
  attach(t);
  while (!g_reclaimer.stop_requested()) {
    if (t.phase == hazard_phase::alive &&
        (g_shared.head.load(std::memory_order_relaxed) != nullptr || t.retired != nullptr ||
         t.pending != nullptr))
      pass_alive(t, pass_cause::reclaimer);
    ::usleep(500);
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------
// NB-H50 (conforming variant): deleters run only on an executor thread that no other thread
// ever synchronizes with. Every retire outside the executor pushes its object onto the
// shared list, a lock-free stack (a release CAS); the executor takes it (an acquire
// exchange, which releases nothing back) and runs passes. Nothing else passes between them:
// no mutex, no condition variable, no join; the executor polls with nanosleep, and the
// backlog that makes a retire wait is a relaxed count. At exit the executor is asked, by a
// relaxed flag, to park before the program's statics are destroyed (nothing waits for it
// beyond a bounded poll); a forked child starts one of its own on its first retire.
// ---------------------------------------------------------------------------------------

// Queued objects at which retire waits, folly's threshold: what is outstanding (the queue
// and the batch in a pass) then reaches its ceiling early in a run whatever the executor's
// share of the processor, as the H9/H38 qoi bounds assume when they judge growth (with
// 8,192 the executor's lag under load sent the late peak past twice the early one).
constexpr std::ptrdiff_t kExecutorBacklog = 1024;
constexpr unsigned kIdleRoundsPerPass = 64;  // a pass over what stays protected, when idle

std::atomic<bool> g_executor_exiting{false};
std::atomic<bool> g_executor_parked{false};
thread_local constinit bool t_is_executor = false;

void nap(long nanoseconds) noexcept {
  timespec ts{0, nanoseconds};
  (void)::nanosleep(&ts, nullptr);
}

void* executor_main(void*);
void park_executor_at_exit() noexcept;
void forget_executor() noexcept;
constinit background_thread g_executor{&executor_main, &park_executor_at_exit, &forget_executor};

void* executor_main(void*) {
  t_is_executor = true;
  hazard_thread_state& t = hazard_tls;
  attach(t);
  for (unsigned idle = 0;; ++idle) {
    if (g_executor_exiting.load(std::memory_order_relaxed)) break;
    const bool fresh = g_shared.head.load(std::memory_order_relaxed) != nullptr;
    if (fresh) idle = 0;
    if (t.phase == hazard_phase::alive && (fresh || (t.retired != nullptr && idle % kIdleRoundsPerPass == 0)))
      pass_alive(t, pass_cause::reclaimer);
    if (!fresh) nap(200'000);
  }
  g_executor_parked.store(true, std::memory_order_relaxed);
  for (;;) nap(100'000'000);  // abandoned: the process ends around it
}

// atexit: no deleter may run once the program's statics are being destroyed. A relaxed
// request and a bounded poll: still no happens-before between the executor and anyone.
void park_executor_at_exit() noexcept {
  if (!g_executor.runs_here()) return;
  g_executor_exiting.store(true, std::memory_order_relaxed);
  for (int i = 0; i < 20'000 && !g_executor_parked.load(std::memory_order_relaxed); ++i) nap(100'000);
}

void forget_executor() noexcept {
  g_executor.forget();
  g_executor_exiting.store(false, std::memory_order_relaxed);
  g_executor_parked.store(false, std::memory_order_relaxed);
}

}  // namespace

namespace hazard_impl {

// NB-H4, NB-H50: true if `t`'s reclamation was left to the background thread.
bool leave_to_reclaimer(hazard_thread_state& t) noexcept {
  if (SAFERECL_MUTANT("NB-H50")) return !t_is_executor;  // its private list is always empty
  if (!SAFERECL_MUTANT("NB-H4") || t_is_reclaimer || !g_reclaimer.start()) return false;
  if (t.retired != nullptr) {
    hazard_retired_node* tail = t.retired;
    std::ptrdiff_t n = 1;
    for (; node_access::next(tail) != nullptr; tail = node_access::next(tail)) ++n;
    push_shared(std::exchange(t.retired, nullptr), tail, n);
    t.retired_count = 0;
  }
  return true;
}

}  // namespace hazard_impl

// NB-H50: hands `n` to the executor; false on the executor itself (a deleter's retire joins
// its private list, as any thread's does) or if it cannot be started.
bool hazard_retire_to_executor(hazard_retired_node* n) noexcept {
  if (t_is_executor || !g_executor.start()) return false;
  push_shared(n, n, 1);
  while (g_shared.count.load(std::memory_order_relaxed) > kExecutorBacklog &&
         !g_executor_exiting.load(std::memory_order_relaxed))
    nap(100'000);
  return true;
}

void hazard_retire_overflow(hazard_thread_state& t) noexcept {
  if (!t.in_pass && !leave_to_reclaimer(t)) pass_alive(t, pass_cause::threshold);
}

void hazard_deleter_retired(hazard_thread_state& t, std::ptrdiff_t n) noexcept {
  if (SAFERECL_MUTANT("MH-08")) {  // the n objects it just retired are reclaimed unchecked
    hazard_retired_node* last = t.retired;
    for (std::ptrdiff_t i = 1; i < n; ++i) last = node_access::next(last);
    hazard_retired_node* list = std::exchange(t.retired, std::exchange(node_access::next(last), nullptr));
    t.retired_count -= n;
    return run_deleters(list);
  }
  // MH-31: no cascade: what deleters retire waits for the threshold
  if (!SAFERECL_MUTANT("MH-31")) pass_alive(t, pass_cause::deleters_retired);
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

// MH-70 and NB-H39: one shared retired list for every retire (a CAS push, as designs
// without per-thread lists have); whoever's retire brings it to the threshold runs a pass
// over it. MH-70 publishes the object before its deleter is stored: the window between the
// push and the store (widened here) is where another thread's pass takes the object.
void hazard_publish_shared(hazard_retired_node* n) noexcept {
  push_shared(n, n, 1);
  ++t_shared_retires;
  if (SAFERECL_MUTANT("MH-70")) SAFERECL_MUTANT_WIDEN_WINDOW();
}

void hazard_pass_shared_if_due() noexcept {
  hazard_thread_state& t = hazard_tls;
  attach(t);
  maybe_pass_shared(t);
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
  if (++t.retired_count >= t.threshold) pass_alive(t, pass_cause::threshold);
}

}  // namespace saferecl::detail
