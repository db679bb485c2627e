// The out-of-line part of <rcu>: registry, grace periods, the callback queue, rcu_barrier,
// thread exit and fork. The algorithm and its ordering argument are described at the top of
// saferecl/rcu.hpp; comments here refer to its paragraphs (a)-(e).
#include "saferecl/rcu.hpp"

#include "saferecl/detail/asymmetric_fence.hpp"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <new>
#include <optional>
#include <thread>

namespace saferecl {

constinit rcu_domain rcu_domain::s_default_;

namespace detail {

struct rcu_domain_access {
  static std::atomic<std::uint64_t>& gp_ctr(rcu_domain& d) noexcept { return d.gp_ctr_; }
  static std::atomic<std::uint32_t>& flags(rcu_domain& d) noexcept { return d.flags_; }
};

namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using acc = rcu_domain_access;

// Pending evaluations above which a retiring thread (outside any region) drives a grace period.
constexpr u64 kRcuRetireThreshold = 1024;
// Scans of the registry (with a pause between them) before a waiting grace period sleeps.
// No sched_yield phase: on an oversubscribed machine a yield hands the CPU to a busy reader
// for a whole time slice, while a futex sleep is ended by the reader's outermost unlock.
constexpr unsigned kSpinScans = 128;

constexpr std::memory_order kScanLoad =
    kTsanBuild ? std::memory_order_seq_cst : std::memory_order_acquire;

// ------------------------------------------------------------------------- futex helpers
void futex_wait(std::atomic<u32>& word, u32 expected) noexcept {
  (void)::syscall(SYS_futex, reinterpret_cast<u32*>(&word), FUTEX_WAIT_PRIVATE, expected,
                  nullptr, nullptr, 0);
}
void futex_wake_all(std::atomic<u32>& word) noexcept {
  (void)::syscall(SYS_futex, reinterpret_cast<u32*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX,
                  nullptr, nullptr, 0);
}
void futex_wake_one(std::atomic<u32>& word) noexcept {
  (void)::syscall(SYS_futex, reinterpret_cast<u32*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr,
                  nullptr, 0);
}

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// A three-state futex mutex (0 free, 1 locked, 2 locked with sleepers). It never allocates,
// can be reset in a fork child, and its acquire/release operations are visible to TSan.
class futex_lock {
 public:
  bool try_lock() noexcept {
    u32 c = 0;
    return state_.compare_exchange_strong(c, 1, std::memory_order_acquire,
                                          std::memory_order_relaxed);
  }
  void lock() noexcept {
    if (try_lock()) return;
    for (int i = 0; i < 100; ++i) {
      cpu_relax();
      if (state_.load(std::memory_order_relaxed) == 0 && try_lock()) return;
    }
    u32 c = state_.exchange(2, std::memory_order_acquire);
    while (c != 0) {
      futex_wait(state_, 2);
      c = state_.exchange(2, std::memory_order_acquire);
    }
  }
  void unlock() noexcept {
    if (state_.exchange(0, std::memory_order_release) == 2) futex_wake_one(state_);
  }
  void reset() noexcept { state_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<u32> state_{0};
};

// An executor's record of the evaluations it has detached and is running: [lo, ...).
struct inflight_ticket {
  u64 lo;
  const void* owner;  // the executing thread (address of its t_in_executor)
  inflight_ticket* prev;
  inflight_ticket* next;
};

struct rcu_state {
  // Grace periods. gp_seq: even = idle, odd = in progress; +2 per grace period.
  alignas(kCacheLine) futex_lock gp_lock;
  std::atomic<u64> gp_seq{0};
  std::atomic<u32> gp_futex{0};  // a sleeping grace period waits here; readers bump it
  // Callers waiting for someone else's grace period sleep on gp_turns, which moves at each
  // release of gp_lock (see drive_until), instead of queueing on gp_lock.
  std::atomic<u32> gp_turns{0};
  std::atomic<u32> gp_turn_waiters{0};
  // How far the grace period in progress (gp_seq odd) has got, under gp_lock: a retire may
  // begin one without waiting (begin_grace_period_early), and whoever drives next resumes it.
  enum class gp_stage : u32 { idle, started, flipped };
  gp_stage stage = gp_stage::idle;

  // Registry: the registered threads' TLS records, linked under reg_lock. A grace period
  // holds reg_lock only for one scan, never while it sleeps, so registration and thread
  // exit wait at most one scan.
  alignas(kCacheLine) futex_lock reg_lock;
  rcu_reader_tls* registry = nullptr;

  // Callback queue, all fields but the atomics guarded by cb_lock.
  alignas(kCacheLine) futex_lock cb_lock;
  rcu_cb_node* head = nullptr;
  rcu_cb_node* tail = nullptr;
  u64 enq_count = 0;    // evaluations ever queued (next sequence number)
  u64 taken_count = 0;  // evaluations ever detached by an executor (a prefix of the queue)
  inflight_ticket* inflight = nullptr;
  u64 finished_count = 0;  // evaluations ever finished by executors (read by MR-61 only)
  u32 barrier_waiters = 0;
  bool torn_down = false;                   // MR-25 only
  std::atomic<u64> head_snap{~u64{0}};      // snap of the queue head (for the ready hint)
  std::atomic<u32> barrier_futex{0};        // bumped when a ticket goes and barriers sleep
};

constinit rcu_state g;
thread_local constinit bool t_in_executor = false;

pthread_once_t g_once = PTHREAD_ONCE_INIT;
pthread_key_t g_exit_key;
bool g_exit_key_ok = false;
bool g_symmetric = false;  // no membarrier: readers' words carry kRcuSpecialBit, they fence

// -------------------------------------------------------------------------- thread exit
void registry_unlink(rcu_reader_tls* r) noexcept {  // reg_lock held
  if (r->prev) r->prev->next = r->next; else g.registry = r->next;
  if (r->next) r->next->prev = r->prev;
  r->prev = r->next = nullptr;
}
void registry_link(rcu_reader_tls* r) noexcept {  // reg_lock held
  r->prev = nullptr;
  r->next = g.registry;
  if (g.registry) g.registry->prev = r;
  g.registry = r;
}

// MR-39: a first lock links its record without the registry lock; between its read of the
// head and its store, another thread's record linked meanwhile is lost.
void registry_link_unlocked(rcu_reader_tls* r) noexcept {
  rcu_reader_tls* head = g.registry;
  r->prev = nullptr;
  r->next = head;
  SAFERECL_MUTANT_WIDEN_WINDOW();
  if (head) head->prev = r;
  g.registry = r;
}

// pthread key destructor: glibc runs these after every C++ thread_local destructor, and
// before the thread's static TLS (which holds the record) is released.
void thread_exit(void* p) noexcept {
  auto* r = static_cast<rcu_reader_tls*>(p);
  g.reg_lock.lock();
  if (SAFERECL_MUTANT("MR-15")) {  // the dead thread's entry stays, showing a stale region
    auto* z = new rcu_reader_tls;
    z->ctr.store(acc::gp_ctr(rcu_default_domain()).load(std::memory_order_relaxed));
    registry_link(z);
  }
  // MR-63: the record stays linked, marked quiescent below, to be skipped by scans; but its
  // static TLS is the next thread's, whose start re-initializes the links the list runs through.
  if (!SAFERECL_MUTANT("MR-63")) registry_unlink(r);
  g.reg_lock.unlock();
  // Not in a region unless the thread exits inside one (UB); a later lock() registers again.
  r->ctr.store(kRcuUnregistered, std::memory_order_relaxed);
}

// ---------------------------------------------------------------------------------- fork
void fork_prepare() noexcept { g.cb_lock.lock(); }
void fork_parent() noexcept { g.cb_lock.unlock(); }
void fork_child() noexcept {
  // Only the forking thread survives: release every other record, abandon a grace period
  // that another thread was driving (it will be redone; gp_seq rolls back to "idle", which
  // is conservative for every target computed so far), and forget evaluations that other
  // threads had detached (they were running on threads that do not exist here).
  g.registry = nullptr;
  g.reg_lock.reset();
  if (tls_rcu_reader.ctr.load(std::memory_order_relaxed) != kRcuUnregistered)
    registry_link(&tls_rcu_reader);  // (a thread forking inside a region keeps its region)
  g.gp_lock.reset();
  g.gp_turn_waiters.store(0, std::memory_order_relaxed);
  const u64 s = g.gp_seq.load(std::memory_order_relaxed);
  if (s & 1) g.gp_seq.store(s - 1, std::memory_order_relaxed);
  g.stage = rcu_state::gp_stage::idle;  // redone from the start: waits for both phases
  acc::flags(rcu_default_domain()).fetch_and(~kRcuWriterWaiting, std::memory_order_relaxed);
  for (inflight_ticket* t = g.inflight; t;) {
    inflight_ticket* nx = t->next;
    if (t->owner != &t_in_executor) {
      if (t->prev) t->prev->next = t->next; else g.inflight = t->next;
      if (t->next) t->next->prev = t->prev;
    }
    t = nx;
  }
  g.barrier_waiters = 0;
  g.cb_lock.reset();
}

// ------------------------------------------------------------------- teardown (MR-25 only)
void teardown_drop() noexcept {  // the domain "shuts down" at exit and drops what is queued
  g.cb_lock.lock();
  g.head = g.tail = nullptr;
  g.taken_count = g.enq_count;
  g.torn_down = true;
  g.cb_lock.unlock();
}

void init_once() noexcept {
  g_symmetric = current_fence_mode() != fence_mode::asymmetric;  // decided for good
  g_exit_key_ok = ::pthread_key_create(&g_exit_key, &thread_exit) == 0;
  (void)::pthread_atfork(&fork_prepare, &fork_parent, &fork_child);
  if (SAFERECL_MUTANT("MR-25")) (void)std::atexit(&teardown_drop);
}

inline void ensure_init() noexcept { (void)::pthread_once(&g_once, &init_once); }

// MR-33, MR-34: an allocation that a mutant's design makes (a per-call waiter record, a
// heap-allocated reader record). It is kept reachable, so the compiler cannot elide it;
// called from a noexcept function, its bad_alloc terminates.
std::atomic<void*> g_mutant_allocation{nullptr};
void mutant_allocate(std::size_t n) {
  ::operator delete(g_mutant_allocation.exchange(::operator new(n), std::memory_order_acq_rel));
}

// ---------------------------------------------------------------------------- registry
// Scan: is some reader inside a region that the current wait must outlast? `cur` is the
// domain word; a region blocks when it is active and began in the other phase.
// MR-05: the grace period reads the word as if the depth were a 16-bit field packed below
// the phase, so depth 2^16 carries into the phase (the region looks over, or new).
inline u64 narrow_view(u64 c) noexcept {
  return ((c & kRcuPhaseBit) ^ ((c & 0x10000) << 47)) | (c & 0xFFFF);
}

bool any_blocking_reader(u64 cur, bool lock_held) noexcept {
  const bool by_fence = SAFERECL_MUTANT("NB-R20");  // conforming: relaxed scan between fences
  const std::memory_order order = SAFERECL_MUTANT("MR-08") || by_fence
                                      ? std::memory_order_relaxed  // MR-08: no acquire
                                      : kScanLoad;
  bool blocking = false;
  if (!lock_held) g.reg_lock.lock();
  if (by_fence) std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with the reader's
  for (rcu_reader_tls* p = g.registry; p; p = p->next) {
    u64 c = p->ctr.load(order);
    if (SAFERECL_MUTANT("MR-05")) c = narrow_view(c);
    if ((c & kRcuDepthMask) == 0 && !SAFERECL_MUTANT("MR-35")) continue;  // MR-35: idle = phase 0
    if (((c ^ cur) & kRcuPhaseBit) != 0 || SAFERECL_MUTANT("MR-23")) { blocking = true; break; }
  }
  if (by_fence && !SAFERECL_MUTANT("MR-70"))  // MR-70: the acquire half of the pair is gone
    std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!lock_held) g.reg_lock.unlock();
  return blocking;
}

void wait_for_readers(rcu_domain& d) noexcept {
  std::atomic<u32>& flags = acc::flags(d);
  const u64 cur = acc::gp_ctr(d).load(std::memory_order_relaxed);  // written only by us
  const bool hold = SAFERECL_MUTANT("MR-16");  // registry lock held across the whole wait
  if (hold) g.reg_lock.lock();
  for (unsigned round = 0;; ++round) {
    if (!any_blocking_reader(cur, hold)) break;
    if (SAFERECL_MUTANT("MR-17")) { cpu_relax(); continue; }  // busy-wait: spins, never sleeps
    if (round < kSpinScans) { cpu_relax(); continue; }
    // Sleep, ordering argument (d): the futex word is read before the rescan.
    u32 seen = g.gp_futex.load(std::memory_order_acquire);
    flags.fetch_or(kRcuWriterWaiting, std::memory_order_seq_cst);
    heavy_fence();
    if (!any_blocking_reader(cur, hold)) break;
    SAFERECL_MUTANT_WIDEN_WINDOW();  // between the rescan and the sleep (MR-18)
    if (SAFERECL_MUTANT("MR-18")) seen = g.gp_futex.load(std::memory_order_acquire);  // late
    futex_wait(g.gp_futex, seen);
  }
  if (hold) g.reg_lock.unlock();
  flags.fetch_and(~kRcuWriterWaiting, std::memory_order_relaxed);
}

// Sets the ready hint when the queue head has become runnable.
void publish_ready_hint(rcu_domain& d) noexcept {
  if (g.head_snap.load(std::memory_order_seq_cst) <= g.gp_seq.load(std::memory_order_seq_cst))
    acc::flags(d).fetch_or(kRcuCallbacksReady, std::memory_order_seq_cst);
}

// A grace period runs in three steps, each under gp_lock: start (gp_seq odd, the writer's
// heavy fence (a)), flip (after no reader of the previous phase is left, (c)), and finish
// (after no reader of the phase before the flip is left). Normally one caller runs all three;
// begin_grace_period_early lets a retire run the first two when they need no wait, so that
// regions beginning after the retire are already in the new phase and nothing waits for
// them (R4: neither a later reader nor a barrier called inside a later region).
void start_grace_period() noexcept {
  const u64 s = g.gp_seq.load(std::memory_order_relaxed);
  g.gp_seq.store(s + 1, std::memory_order_seq_cst);
  if (!SAFERECL_MUTANT("MR-07")) heavy_fence();  // (a)
  g.stage = rcu_state::gp_stage::started;
}

// Flips the phase once no stale reader is left; waits for them when `may_wait`, otherwise
// returns false (the grace period stays started) if there is one.
bool flip_phase(rcu_domain& d, bool may_wait) noexcept {
  if (!SAFERECL_MUTANT("MR-03")) {  // stale readers, (c)
    if (may_wait)
      wait_for_readers(d);
    else if (any_blocking_reader(acc::gp_ctr(d).load(std::memory_order_relaxed), false))
      return false;
  }
  std::atomic<u64>& word = acc::gp_ctr(d);
  word.store(word.load(std::memory_order_relaxed) ^ kRcuPhaseBit, std::memory_order_seq_cst);
  g.stage = rcu_state::gp_stage::flipped;
  return true;
}

// NB-R30 (conforming): a grace period flips the phase four times, not twice, waiting after
// each flip for the readers of the phase before it, as designs with more than two reader
// phases (or counter-based ones that flip until a round finds no reader) do.
constexpr int kExtraFlips = 2;

void finish_grace_period(rcu_domain& d) noexcept {
  wait_for_readers(d);  // readers of the old phase
  for (int i = 0; SAFERECL_MUTANT("NB-R30") && i < kExtraFlips; ++i) {
    std::atomic<u64>& word = acc::gp_ctr(d);
    word.store(word.load(std::memory_order_relaxed) ^ kRcuPhaseBit, std::memory_order_seq_cst);
    wait_for_readers(d);
  }
  const u64 done = g.gp_seq.load(std::memory_order_relaxed) + 1;
  if (SAFERECL_MUTANT("MR-36"))  // "guarded by gp_lock": a plain store, read outside the lock
    *reinterpret_cast<volatile u64*>(&g.gp_seq) = done;
  else
    g.gp_seq.store(done, std::memory_order_seq_cst);
  g.stage = rcu_state::gp_stage::idle;
  publish_ready_hint(d);
}

// One grace period (or the rest of one that a retire began); gp_lock held.
void run_grace_period(rcu_domain& d) noexcept {
  if (g.stage == rcu_state::gp_stage::idle) start_grace_period();
  if (g.stage == rcu_state::gp_stage::started) (void)flip_phase(d, true);
  finish_grace_period(d);
}

// Target of gp_seq that ends a whole grace period starting after a snapshot `s`.
inline u64 target_after(u64 s) noexcept { return (s + 3) & ~u64{1}; }
// The same, but content with a grace period already in progress (MR-04 / MR-19).
inline u64 target_joining(u64 s) noexcept { return (s & 1) ? s + 1 : s + 2; }

void release_gp_lock() noexcept {
  g.gp_lock.unlock();
  g.gp_turns.fetch_add(1, std::memory_order_seq_cst);
  if (g.gp_turn_waiters.load(std::memory_order_seq_cst) != 0) futex_wake_all(g.gp_turns);
}

// Called by a retire after it took its snapshot of gp_seq: when no grace period is in
// progress, begin the one its evaluation waits for, as far as that needs no wait (start and
// flip). Never blocks, so it is safe inside a region and inside a deleter. At most one
// heavy fence per grace period: the next retire finds this one in progress.
void begin_grace_period_early(rcu_domain& d) noexcept {
  if ((g.gp_seq.load(std::memory_order_relaxed) & 1) != 0) return;
  if (!g.gp_lock.try_lock()) return;
  if (g.stage == rcu_state::gp_stage::idle &&
      !any_blocking_reader(acc::gp_ctr(d).load(std::memory_order_relaxed), false)) {
    start_grace_period();
    (void)flip_phase(d, false);
  }
  release_gp_lock();
}

// Returns once gp_seq has reached `target`, running grace periods itself whenever gp_lock
// is free. A caller that finds gp_lock taken does not queue on it: gp_lock is not fair, and
// a thread that synchronizes in a loop could take it again and again while the queued one
// sleeps (seen: one synchronizer starved for 2 s while another completed 2000 grace
// periods). It sleeps on gp_turns instead and rechecks gp_seq at each release, so the
// grace periods that others run count for it too. No lost wake-up: the waiter is counted
// and reads gp_turns before its try_lock fails, and the holder's release bumps gp_turns
// and reads the count after its unlock (all seq_cst), so either the waiter's futex_wait
// sees the bump or the release sees the waiter and wakes it.
void drive_until(rcu_domain& d, u64 target) noexcept {
  while (g.gp_seq.load(std::memory_order_acquire) < target) {
    g.gp_turn_waiters.fetch_add(1, std::memory_order_seq_cst);
    const u32 seen = g.gp_turns.load(std::memory_order_seq_cst);
    if (g.gp_lock.try_lock()) {
      g.gp_turn_waiters.fetch_sub(1, std::memory_order_relaxed);
      if (g.gp_seq.load(std::memory_order_relaxed) < target) run_grace_period(d);
      release_gp_lock();
      continue;
    }
    full_fence();  // the failed try_lock, then gp_seq
    if (g.gp_seq.load(std::memory_order_acquire) < target) futex_wait(g.gp_turns, seen);
    g.gp_turn_waiters.fetch_sub(1, std::memory_order_relaxed);
  }
}

// ----------------------------------------------------------------------------- executor
// Detaches the runnable prefix of the queue and runs it outside every internal lock.
// Returns false when nothing was runnable (or the lock was busy and `wait` is false).
bool run_ready(rcu_domain& d, bool wait) noexcept {
  if (wait) g.cb_lock.lock();
  else if (!g.cb_lock.try_lock()) return false;
  acc::flags(d).fetch_and(~kRcuCallbacksReady, std::memory_order_seq_cst);
  const u64 done = g.gp_seq.load(std::memory_order_seq_cst);
  rcu_cb_node* const first = g.head;
  rcu_cb_node* last = nullptr;
  u64 n = 0;
  for (rcu_cb_node* p = first; p != nullptr && p->snap <= done; p = p->next) { last = p; ++n; }
  if (n == 0) {
    g.cb_lock.unlock();
    return false;
  }
  if (SAFERECL_MUTANT("MR-22")) {  // splice off by one: the last node stays queued
    g.head = last;
    g.taken_count += n - 1;
  } else {
    g.head = last->next;
    if (g.head == nullptr) g.tail = nullptr;
    g.taken_count += n;
  }
  g.head_snap.store(g.head ? g.head->snap : ~u64{0}, std::memory_order_seq_cst);
  publish_ready_hint(d);
  inflight_ticket t{first->seq, &t_in_executor, nullptr, g.inflight};
  if (g.inflight) g.inflight->prev = &t;
  g.inflight = &t;
  const bool hold = SAFERECL_MUTANT("MR-10");  // deleters run under the queue lock
  if (!hold) g.cb_lock.unlock();

  const bool outer = t_in_executor;
  t_in_executor = true;
  const u64 batch = n;
  for (rcu_cb_node* p = first; n-- > 0;) {
    rcu_cb_node* nx = p->next;  // p is gone after invoke
    p->invoke(p);
    p = nx;
  }
  t_in_executor = outer;

  if (!hold) g.cb_lock.lock();
  g.finished_count += batch;
  if (t.prev) t.prev->next = t.next; else g.inflight = t.next;
  if (t.next) t.next->prev = t.prev;
  const bool wake = g.barrier_waiters != 0;
  if (wake) g.barrier_futex.fetch_add(1, std::memory_order_release);
  g.cb_lock.unlock();
  if (wake) futex_wake_all(g.barrier_futex);
  return true;
}

u64 pending_count() noexcept {
  g.cb_lock.lock();
  const u64 n = g.enq_count - g.taken_count;
  g.cb_lock.unlock();
  return n;
}

bool in_own_region() noexcept {
  const u64 c = tls_rcu_reader.ctr.load(std::memory_order_relaxed);
  return c != kRcuUnregistered && (c & kRcuDepthMask) != 0;
}

// Drives a grace period covering everything queued so far, then runs what is runnable.
void drive_and_run(rcu_domain& d) noexcept {
  g.cb_lock.lock();
  const u64 target = g.tail ? g.tail->snap : 0;
  g.cb_lock.unlock();
  drive_until(d, target);
  run_ready(d, true);
}

// ------------------------------------------------------- NB-R4: a dedicated callback thread
// Conforming variant: one process-wide thread runs every deleter; retire, rcu_retire and
// unlock only queue, and rcu_barrier waits for that thread instead of running deleters
// itself (it still drives grace periods, as any caller may). Stopped and joined at exit,
// after which barriers run deleters themselves; started afresh in a forked child.
std::atomic<bool> g_worker_started{false};
std::atomic<bool> g_worker_stop{false};
std::atomic<pid_t> g_worker_pid{0};
pthread_t g_worker_thread;

// NB-R10 only: how many rcu_barrier callers wait for the worker; while any does, the lazy
// worker stops batching.
std::atomic<int> g_worker_hurry{0};
struct worker_hurry {
  worker_hurry() noexcept { g_worker_hurry.fetch_add(1, std::memory_order_acq_rel); }
  ~worker_hurry() { g_worker_hurry.fetch_sub(1, std::memory_order_acq_rel); }
  worker_hurry(const worker_hurry&) = delete;
  worker_hurry& operator=(const worker_hurry&) = delete;
};

// NB-R10 (conforming): the worker batches lazily. Once callbacks are pending it lets more
// arrive for up to 50 ms before it drives a grace period and runs the ready ones, as a
// power-saving callback thread does; a waiting rcu_barrier cuts the delay short.
// Timed by the clock, not by counting sleeps: under load a 1 ms sleep takes far longer.
void lazy_batch_delay() noexcept {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  while (std::chrono::steady_clock::now() < until) {
    if (g_worker_hurry.load(std::memory_order_acquire) != 0 ||
        g_worker_stop.load(std::memory_order_acquire))
      return;
    ::usleep(1000);
  }
}

void* callback_worker_main(void*) {
  rcu_domain& d = rcu_default_domain();
  while (!g_worker_stop.load(std::memory_order_acquire)) {
    if (pending_count() != 0) {
      if (SAFERECL_MUTANT("NB-R10")) lazy_batch_delay();
      drive_and_run(d);
    } else {
      ::usleep(200);
    }
  }
  return nullptr;
}

void stop_callback_worker() noexcept {
  if (g_worker_pid.load() != ::getpid()) return;  // not started in this process
  g_worker_stop.store(true, std::memory_order_release);
  ::pthread_join(g_worker_thread, nullptr);
  g_worker_pid.store(0);
}

// NB-R10 only: this process is a forked child, which gets no callback thread (its callers
// run deleters themselves, as after exit): no thread is started after a fork.
std::atomic<bool> g_worker_forked{false};

void callback_worker_fork_child() noexcept {
  g_worker_started.store(false);
  g_worker_stop.store(false);
  g_worker_pid.store(0);
  g_worker_forked.store(true);
}

// NB-R4 and NB-R10 only: true while the worker runs deleters (started here on first use).
bool callback_worker_runs() noexcept {
  const bool lazy = SAFERECL_MUTANT("NB-R10");
  if (!SAFERECL_MUTANT("NB-R4") && !lazy) return false;
  if (lazy && g_worker_forked.load(std::memory_order_relaxed)) return false;
  if (g_worker_started.load(std::memory_order_acquire))
    return g_worker_pid.load() == ::getpid() && !g_worker_stop.load(std::memory_order_acquire);
  bool expected = false;
  if (g_worker_started.compare_exchange_strong(expected, true)) {
    static std::atomic<bool> hooks{false};
    if (!hooks.exchange(true)) {
      (void)std::atexit(&stop_callback_worker);
      (void)::pthread_atfork(nullptr, nullptr, &callback_worker_fork_child);
    }
    if (::pthread_create(&g_worker_thread, nullptr, &callback_worker_main, nullptr) != 0) {
      g_worker_started.store(false);
      return false;
    }
    g_worker_pid.store(::getpid());
    return true;
  }
  return g_worker_pid.load() == ::getpid() && !g_worker_stop.load(std::memory_order_acquire);
}

}  // namespace

// ------------------------------------------------------------------------ entry points
void rcu_lock_slow(rcu_domain& d) noexcept {
  std::atomic<u64>& w = tls_rcu_reader.ctr;
  u64 c = w.load(std::memory_order_relaxed);
  if (c == kRcuUnregistered) {  // the thread's first region: link its record
    ensure_init();              // decides the fence mode first
    if (SAFERECL_MUTANT("MR-34")) mutant_allocate(sizeof(rcu_reader_tls));  // heap record
    if (SAFERECL_MUTANT("MR-39")) {
      registry_link_unlocked(&tls_rcu_reader);
    } else {
      g.reg_lock.lock();
      registry_link(&tls_rcu_reader);
      g.reg_lock.unlock();
    }
    if (g_exit_key_ok) (void)::pthread_setspecific(g_exit_key, &tls_rcu_reader);
    c = g_symmetric ? kRcuSymmetricIdle : 0;
    w.store(c, std::memory_order_relaxed);
    if (c == 0) { d.lock(); return; }  // membarrier mode: the inline path from now on
  }
  if (SAFERECL_MUTANT("MR-06")) c &= ~kRcuDepthMask;
  if ((c & kRcuDepthMask) == 0) {  // symmetric mode, outermost
    const u64 g_word = acc::gp_ctr(d).load(std::memory_order_relaxed);
    SAFERECL_MUTANT_WIDEN_WINDOW();
    w.store(g_word | kRcuSpecialBit, kRcuPublish);
    if (!SAFERECL_MUTANT("MR-07")) full_fence();
  } else {  // symmetric mode, nested
    w.store(c + 1, kRcuPublish);
  }
}

void rcu_unlock_slow(rcu_domain& d) noexcept {
  std::atomic<u32>& flags = acc::flags(d);
  if ((flags.load(std::memory_order_relaxed) & kRcuWriterWaiting) != 0 &&
      (flags.fetch_and(~kRcuWriterWaiting, std::memory_order_acq_rel) & kRcuWriterWaiting) != 0) {
    g.gp_futex.fetch_add(1, std::memory_order_release);
    futex_wake_all(g.gp_futex);
  }
  if (t_in_executor) return;  // an unlock inside a deleter runs nothing
  if (SAFERECL_MUTANT("NB-R2")) return;  // conforming: only rcu_barrier runs deleters
  if (callback_worker_runs()) return;     // NB-R4, conforming: only the worker runs them
  if ((flags.load(std::memory_order_relaxed) & kRcuCallbacksReady) != 0) run_ready(d, false);
}

void rcu_unlock_outermost_slow(rcu_domain& d) noexcept {
  const u64 c = tls_rcu_reader.ctr.load(std::memory_order_relaxed);
  tls_rcu_reader.ctr.store(c & kRcuSpecialBit, kRcuPublish);  // 0, or the symmetric idle word
  full_fence();  // symmetric mode's light fence (d)
  if ((c & kRcuOwesBit) != 0 && !t_in_executor && pending_count() >= kRcuRetireThreshold) {
    rcu_unlock_slow(d);  // wake a sleeping grace period first: it may be waiting for us
    drive_and_run(d);    // the drive this thread owes since it retired inside its region
    return;
  }
  if (acc::flags(d).load(std::memory_order_seq_cst) != 0) rcu_unlock_slow(d);
}

// MR-40: every lock() counts itself in a plain domain-wide statistic (a data race).
unsigned long g_mutant_regions_opened = 0;
void mutant_count_region() noexcept { ++g_mutant_regions_opened; }

void rcu_enqueue(rcu_domain& d, rcu_cb_node* n) noexcept {
  ensure_init();
  if (SAFERECL_MUTANT("MR-02")) { n->invoke(n); return; }  // deleter runs inside retire
  light_fence();  // (a): the caller's unlink before the snapshot of gp_seq
  g.cb_lock.lock();
  if (g.torn_down) { g.cb_lock.unlock(); return; }  // MR-25 only: dropped
  const u64 s = g.gp_seq.load(std::memory_order_seq_cst);
  const u64 target = SAFERECL_MUTANT("MR-04") ? target_joining(s) : target_after(s);
  n->snap = target;
  n->seq = g.enq_count++;
  n->next = nullptr;
  if (g.tail) {
    g.tail->next = n;
  } else {
    g.head = n;
    g.head_snap.store(target, std::memory_order_seq_cst);
  }
  g.tail = n;
  const u64 pending = g.enq_count - g.taken_count;
  g.cb_lock.unlock();
  // n may already be running on another thread: do not touch it any more.

  // NB-R3 (conforming): no early start; a barrier then waits for regions begun after this.
  if (!SAFERECL_MUTANT("NB-R3")) begin_grace_period_early(d);
  const bool over = pending >= kRcuRetireThreshold;
  if (SAFERECL_MUTANT("MR-09") && over) drive_until(d, target);  // waits even in a region
  if (t_in_executor || SAFERECL_MUTANT("NB-R2")) return;  // a deleter's retire only queues
  if (callback_worker_runs()) return;  // NB-R4: the worker drives and runs
  if (in_own_region()) {      // never run or wait inside one's own region: defer
    std::atomic<u64>& w = tls_rcu_reader.ctr;  // the outermost unlock drives instead
    if (over) w.store(w.load(std::memory_order_relaxed) | kRcuOwesBit, kRcuPublish);
    return;
  }
  if (over) {
    drive_until(d, target);
    run_ready(d, true);
  } else if ((acc::flags(d).load(std::memory_order_relaxed) & kRcuCallbacksReady) != 0) {
    run_ready(d, false);
  }
}

}  // namespace detail

// -------------------------------------------------------------------------- public API
void rcu_synchronize(rcu_domain& d) noexcept {
  if (SAFERECL_MUTANT("MR-01")) return;  // busted synchronize
  detail::ensure_init();
  if (SAFERECL_MUTANT("MR-33")) detail::mutant_allocate(sizeof(detail::inflight_ticket));  // waiter
  if (SAFERECL_MUTANT("MR-41"))  // sleeps for a reader's wake-up before looking for readers
    detail::futex_wait(detail::g.gp_futex, detail::g.gp_futex.load(std::memory_order_acquire));
  detail::light_fence();  // (a): the caller's prior stores before the snapshot
  const std::uint64_t s = detail::g.gp_seq.load(std::memory_order_seq_cst);
  detail::drive_until(d, SAFERECL_MUTANT("MR-19") ? detail::target_joining(s)
                                                  : detail::target_after(s));
  // Conforming variant: also run whatever that grace period made ready.
  if (SAFERECL_MUTANT("NB-R1") && !detail::t_in_executor) detail::run_ready(d, true);
}

void rcu_barrier(rcu_domain& d) noexcept {
  using detail::g;
  if (SAFERECL_MUTANT("MR-28")) return rcu_synchronize(d);  // waits for runnable, not for run
  detail::ensure_init();
  if (SAFERECL_MUTANT("MR-33")) detail::mutant_allocate(sizeof(detail::inflight_ticket));  // waiter
  g.cb_lock.lock();
  const std::uint64_t target = g.enq_count;  // every evaluation queued before this call
  const std::uint64_t target_snap = g.tail ? g.tail->snap : 0;
  std::optional<detail::worker_hurry> hurry;
  for (;;) {  // cb_lock held at the top of each round
    if (g.taken_count < target) {  // some are still queued: make them runnable, run them
      g.cb_lock.unlock();
      detail::drive_until(d, target_snap);
      if (detail::callback_worker_runs()) {  // NB-R4, NB-R10: the worker runs them; poll
        if (!hurry) hurry.emplace();  // NB-R10: a barrier waits, stop batching
        ::usleep(100);
        g.cb_lock.lock();
        continue;
      }
      const bool locked = SAFERECL_MUTANT("MR-37");  // deleters run inside the GP section
      if (locked) { g.gp_lock.lock(); g.reg_lock.lock(); }
      detail::run_ready(d, true);
      if (locked) { g.reg_lock.unlock(); detail::release_gp_lock(); }
      g.cb_lock.lock();
      continue;
    }
    bool older_inflight = false;
    if (SAFERECL_MUTANT("MR-61")) {  // MR-61: waits for a count of finished evaluations, so
      older_inflight = g.finished_count < target;  // later ones finishing elsewhere count
    } else if (!SAFERECL_MUTANT("MR-12")) {  // MR-12: ignores evaluations others are running
      for (detail::inflight_ticket* t = g.inflight; t; t = t->next)
        if (t->lo < target) { older_inflight = true; break; }
    }
    if (!older_inflight && !SAFERECL_MUTANT("MR-29")) break;  // MR-29: sleeps unconditionally
    const std::uint32_t seen = g.barrier_futex.load(std::memory_order_relaxed);
    ++g.barrier_waiters;
    g.cb_lock.unlock();
    detail::futex_wait(g.barrier_futex, seen);
    g.cb_lock.lock();
    --g.barrier_waiters;
  }
  g.cb_lock.unlock();
}

}  // namespace saferecl
