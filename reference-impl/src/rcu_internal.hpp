// rcu_internal.hpp -- what the out-of-line parts of <rcu> share (private to src/): the
// domain's process-wide state (grace-period sequence, reader registry, callback queue), the
// futex primitives they are built from, and the functions one part calls in another.
//
//   rcu_readers.cpp       reader records: registration, the registry scan, the read side's
//                         out-of-line paths, thread exit
//   rcu_grace_period.cpp  the grace-period engine: waiting for readers, the two-phase flip,
//                         driving grace periods for others, rcu_synchronize
//   rcu_callbacks.cpp     the callback queues (each thread's, and the domain's): retire,
//                         executors, rcu_barrier, hand-over at thread exit and fork, the
//                         callback thread of the conforming variants NB-R4/NB-R10
//   rcu_node_cache.cpp    the slow paths of the thread's cache of rcu_retire node blocks
//   rcu_process.cpp       process-wide: the domain object, one-time initialization, fork
//
// The algorithm and its ordering argument are described at the top of saferecl/rcu.hpp;
// comments in these files refer to its paragraphs (a)-(e).
#pragma once

#include "saferecl/rcu.hpp"

#include "saferecl/detail/asymmetric_fence.hpp"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstddef>

namespace saferecl::detail {

struct rcu_domain_access {
  static std::atomic<std::uint64_t>& gp_ctr(rcu_domain& d) noexcept { return d.gp_ctr_; }
  static std::atomic<std::uint32_t>& flags(rcu_domain& d) noexcept { return d.flags_; }
};

namespace rcu_impl {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using acc = rcu_domain_access;

// Pending evaluations above which a retiring thread (outside any region) drives a grace period.
constexpr u64 kRcuRetireThreshold = 1024;
// Scans of the registry (with a pause between them) before a waiting grace period sleeps.
// The writer never yields: on an oversubscribed machine a yield hands the CPU to a busy
// reader for a whole time slice, while a futex sleep is ended by the awaited reader's
// outermost unlock (and the readers yield instead: rcu.hpp, "Oversubscription").
constexpr unsigned kSpinScans = 128;

constexpr std::memory_order kScanLoad =
    kTsanBuild ? std::memory_order_seq_cst : std::memory_order_acquire;

// ------------------------------------------------------------------------- futex helpers
inline void futex_wait(std::atomic<u32>& word, u32 expected) noexcept {
  (void)::syscall(SYS_futex, reinterpret_cast<u32*>(&word), FUTEX_WAIT_PRIVATE, expected,
                  nullptr, nullptr, 0);
}
inline void futex_wake_all(std::atomic<u32>& word) noexcept {
  (void)::syscall(SYS_futex, reinterpret_cast<u32*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX,
                  nullptr, nullptr, 0);
}
inline void futex_wake_one(std::atomic<u32>& word) noexcept {
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
// The uncontended half of both futex mutexes below: 0 -> 1 by CAS, then up to 100 spins
// that retry when the lock looks free. False: the caller goes on to sleep.
inline bool try_lock_word(std::atomic<u32>& state) noexcept {
  u32 c = 0;
  return state.compare_exchange_strong(c, 1, std::memory_order_acquire, std::memory_order_relaxed);
}
inline bool lock_word_spinning(std::atomic<u32>& state) noexcept {
  if (try_lock_word(state)) return true;
  for (int i = 0; i < 100; ++i) {
    cpu_relax();
    if (state.load(std::memory_order_relaxed) == 0 && try_lock_word(state)) return true;
  }
  return false;
}

class futex_lock {
 public:
  bool try_lock() noexcept { return try_lock_word(state_); }
  void lock() noexcept {
    if (lock_word_spinning(state_)) return;
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

// The queue lock (cb_lock), taken once per retire: a futex mutex whose release is a plain
// store. A locked exchange waits for every earlier store to drain -- the node just written
// among them -- and took a third of rcu_enqueue's time. A plain store cannot learn that
// someone sleeps, so a sleeper counts itself and issues heavy_fence() before it tries again
// and sleeps; a release stores, light_fence(), then reads the count: either the sleeper's
// try sees the lock free, or the release sees the sleeper and wakes it (the StoreLoad
// pairing of (a)). A woken sleeper that loses the race sleeps again, still counted, so a
// later release wakes it. The cost moves to contention: a membarrier before a sleep (after
// 100 spins).
class asymmetric_futex_lock {
 public:
  bool try_lock() noexcept { return try_lock_word(state_); }
  void lock() noexcept {
    if (lock_word_spinning(state_)) return;
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    heavy_fence();
    while (!try_lock()) futex_wait(state_, 1);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }
  void unlock() noexcept {
    state_.store(0, kRcuPublish);
    light_fence();
    if (sleepers_.load(kRcuFlagsLoad) != 0) futex_wake_one(state_);
  }
  void reset() noexcept {
    state_.store(0, std::memory_order_relaxed);
    sleepers_.store(0, std::memory_order_relaxed);
  }

 private:
  std::atomic<u32> state_{0};     // 0 free, 1 locked
  std::atomic<u32> sleepers_{0};  // threads between their heavy fence and the lock
};

// A thread's own callback queue, in its static TLS (rcu_callbacks.cpp explains the design).
// Appended to by its owner only, under its lock; collectors (rcu_barrier, fork) take the
// lock too. Lock order: g.queues_lock, then a queue's lock, then g.cb_lock.
struct cb_queue {
  asymmetric_futex_lock lock;
  rcu_cb_node* head = nullptr;  // oldest first
  rcu_cb_node* tail = nullptr;
  u64 count = 0;
  u64 max_snap = 0;  // the largest snap in it
  cb_queue* prev = nullptr;  // g.queues links (g.queues_lock)
  cb_queue* next = nullptr;
  // unlinked: not yet in g.queues; linked: in it; closed: handed over at the thread's exit
  // (or no exit hook could be set), and retires go straight to the domain queue.
  enum class state : u32 { unlinked, linked, closed };
  state st = state::unlinked;  // owner only, but for fork
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
  std::atomic<u32> gp_sleeps{0};  // sleeps of waiting grace periods (readers yield once per sleep)
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

  // Every thread's own callback queue (cb_queue) that may hold evaluations, linked under
  // queues_lock: rcu_barrier collects them into the domain queue.
  alignas(kCacheLine) futex_lock queues_lock;
  cb_queue* queues = nullptr;

  // The domain's callback queue (what threads' queues moved into it, in the order they
  // moved), all fields but the atomics guarded by cb_lock.
  alignas(kCacheLine) asymmetric_futex_lock cb_lock;
  rcu_cb_node* head = nullptr;
  rcu_cb_node* tail = nullptr;
  u64 enq_count = 0;    // evaluations ever moved into this queue
  u64 taken_count = 0;  // evaluations ever detached by an executor (a prefix of the queue)
  inflight_ticket* inflight = nullptr;
  u64 finished_count = 0;  // evaluations ever finished by executors (read by MR-61 only)
  u64 max_snap = 0;        // the largest snap ever queued: once reached, all are runnable
  u32 barrier_waiters = 0;
  bool torn_down = false;                   // MR-25 only
  std::atomic<u64> head_snap{~u64{0}};      // snap of the queue head (for the ready hint)
  std::atomic<u32> barrier_futex{0};        // bumped when a ticket goes and barriers sleep
};


extern rcu_state g;
extern thread_local constinit bool t_in_executor;  // the thread is running deleters

extern pthread_once_t g_once;
extern pthread_key_t g_exit_key;
extern bool g_exit_key_ok;
extern bool g_symmetric;  // no membarrier: readers' words carry kRcuSpecialBit, they fence
extern pthread_key_t g_node_cache_key;  // its destructor releases the thread's node cache
extern bool g_node_cache_key_ok;
extern pthread_key_t g_cb_queue_key;    // its destructor hands the thread's queue over
extern bool g_cb_queue_key_ok;

// rcu_process.cpp
void init_once() noexcept;
extern std::atomic<bool> g_inited;  // init_once has run: the inline test spares a call
inline void ensure_init() noexcept {
  if (!g_inited.load(std::memory_order_acquire)) [[unlikely]]
    (void)::pthread_once(&g_once, &init_once);
}
void mutant_allocate(std::size_t n);  // MR-33, MR-34

// rcu_readers.cpp
void registry_link(rcu_reader_tls* r) noexcept;  // reg_lock held
void thread_exit(void* p) noexcept;              // the pthread key's destructor
bool any_blocking_reader(u64 cur, bool lock_held) noexcept;

// rcu_grace_period.cpp
// Target of gp_seq that ends a whole grace period starting after a snapshot `s`.
inline u64 target_after(u64 s) noexcept { return (s + 3) & ~u64{1}; }
// The same, but content with a grace period already in progress (MR-04 / MR-19).
inline u64 target_joining(u64 s) noexcept { return (s & 1) ? s + 1 : s + 2; }
void release_gp_lock() noexcept;
void wait_for_readers(rcu_domain& d) noexcept;
inline bool grace_period_running() noexcept {
  return (g.gp_seq.load(std::memory_order_relaxed) & 1) != 0;
}
void begin_grace_period_early(rcu_domain& d) noexcept;  // when !grace_period_running()
void drive_until(rcu_domain& d, u64 target) noexcept;

// rcu_node_cache.cpp
void close_node_cache(void*) noexcept;  // g_node_cache_key's destructor

// rcu_callbacks.cpp
void publish_ready_hint(rcu_domain& d) noexcept;
bool run_ready(rcu_domain& d, bool wait) noexcept;
u64 pending_count() noexcept;
void drive_and_run(rcu_domain& d) noexcept;
bool callback_worker_runs() noexcept;  // NB-R4, NB-R10
void teardown_drop() noexcept;         // MR-25
void hand_over_queue(void*) noexcept;  // g_cb_queue_key's destructor
void queues_fork_prepare() noexcept;   // takes queues_lock and every queue's lock
void queues_fork_parent() noexcept;
void queues_fork_child() noexcept;     // adopts the queues of the threads left behind

}  // namespace rcu_impl
}  // namespace saferecl::detail
