// rcu_callbacks.cpp -- <rcu>, the callback queues: retire() and rcu_retire() append to the
// calling thread's own queue, which moves into the domain's queue in batches; executors
// detach the domain queue's runnable prefix and run the deleters outside every internal
// lock; rcu_barrier() collects every thread's queue and waits until every earlier evaluation
// has finished. Also the callback thread of the conforming variants NB-R4 and NB-R10, the
// lazy drainer NB-R11, NB-R39's helped batches and NB-R50's lock-free-fed executor.
//
// ==================================================================================== design
//
// ALGORITHM. Each thread owns a cb_queue in its static TLS: a FIFO of nodes, a count, the
// largest snap in it and a lock (rcu_internal.hpp). A retire takes its snapshot target of
// gp_seq (after light_fence(), rcu.hpp (a)), then appends its node under the queue's own
// lock, which nobody else takes but a collector, so the lock's line stays in the owner's
// cache and its acquire is an uncontended CAS on it. Every kLocalBatch (64) appends the
// owner moves the whole queue into the domain queue under cb_lock (a splice: head, tail,
// count, max snap; no walk), and only then does what a retire did before with the domain
// queue: drive a grace period past kRcuRetireThreshold pending, run what is ready. The
// common retire thus touches only its thread's lines and the read-mostly gp_seq and flags.
// A thread links its queue into g.queues at its first retire and sets a pthread key whose
// destructor hands the queue over at exit. Grace periods are tracked per node (its snap):
// a queue's nodes have non-decreasing snaps and a batch carries its largest, so the domain
// queue's max_snap -- the target that makes every queued node runnable -- needs no walk.
// Runnable nodes are still the domain queue's prefix up to the first node not yet runnable
// (batches of several threads interleave, so snaps in the domain queue need not increase;
// a node not yet runnable holds back the ones behind it until its own target, at most the
// grace period after the one in progress).
// In-flight tickets carry the domain-queue position of their first node (taken_count when
// they were detached): positions are given by the order in which batches move in.
//
// BARRIER REACH. rcu_barrier() holds queues_lock and moves every linked queue into the
// domain queue, each under its own lock, and only then reads enq_count (T) and max_snap.
// Let E be scheduled by a retire R that happens before the call. R appended E under its
// thread's queue lock. (1) If that queue was linked when the barrier held queues_lock --
// a queue is linked before its first append and unlinked only after it was emptied, both
// under queues_lock -- the barrier's acquire of the queue lock follows R's release, so it
// finds E in the queue, or E had already moved into the domain queue: by the owner's
// flush, which moves under the queue lock AND cb_lock at once, so E is never in neither.
// (2) Otherwise its thread handed the queue over at exit before the barrier took
// queues_lock (hand-over moves the queue into the domain queue before it unlinks it, in
// one critical section of queues_lock), or R ran after the hand-over, on a closed queue,
// and put E in the domain queue directly. Either way E is before position T, and from
// there the domain queue's argument applies (rcu.hpp, CALLBACKS): the barrier drives
// gp_seq to max_snap and runs, or waits for, every position below T (in-flight tickets).
//
// HAND-OVER AT THREAD EXIT. The key destructor takes queues_lock, the queue's lock and
// cb_lock, splices, unlinks and marks the queue closed: a concurrent barrier either ran its
// collection before (and emptied the queue) or runs it after and finds the nodes in the
// domain queue. glibc runs key destructors after every C++ thread_local destructor, so
// retires in those are in the queue; a retire in a later key destructor finds the queue
// closed and queues in the domain queue directly (the key may not be called again, and the
// TLS is released at exit, so a closed queue is never linked again). No key
// (pthread_key_create or pthread_setspecific failed): the queue is closed from the start.
// The main thread never hands over: its queue stays linked, and barriers in static
// destructors collect it.
//
// FORK. fork_prepare takes queues_lock, then every linked queue's lock, then cb_lock (the
// lock order), so no queue or splice is half-done at the fork. The child has only the
// forking thread: it moves every other thread's queue into the domain queue and unlinks it
// (its TLS becomes a new thread's memory), keeps its own, and resets the locks. A barrier in
// the child thus runs what the parent's other threads had queued before the fork.
//
// RE-ENTRANCY, ALLOCATION. No internal lock is held while a deleter runs; a deleter's
// retire appends to the running thread's queue and never runs or waits (t_in_executor).
// Nothing here allocates: queues live in TLS, nodes in the retired object or rcu_retire's
// block (glibc's pthread_setspecific allocates only for keys past the first 32; if it
// fails, the queue is closed).
//
// GUARANTEES. Every node moves into the domain queue exactly once (under its queue's lock,
// which empties it), is detached exactly once, so runs exactly once. rcu_barrier returns
// after every evaluation scheduled by a retire that happens before it has finished, whatever
// the retiring thread did since (kept running, exited, or was left behind by a fork).
//
// COSTS. retire: the snapshot, an uncontended lock of the thread's own queue (a CAS and a
// plain-store release), 5 stores; per 64 retires one cb_lock splice. rcu_barrier and fork:
// one queue lock per live thread that has retired, each contended only with its owner's
// append. Memory: up to 63 evaluations per thread wait in its queue until its next batch, a
// barrier or its exit, above the domain queue's ~1024.

#include "background_thread.hpp"
#include "rcu_internal.hpp"

#include <time.h>

#include <chrono>
#include <optional>

namespace saferecl::detail {
namespace rcu_impl {

thread_local constinit bool t_in_executor = false;
bool run_helped(rcu_cb_node* first, u64 lo, u64 n) noexcept;  // NB-R39, below

// ------------------------------------------------------------------ the threads' queues
constexpr u64 kLocalBatch = 64;  // appends between two moves of a queue into the domain's
thread_local constinit cb_queue t_cb_queue;

// Moves the batch [first .. last] (n nodes, largest snap max_snap) to the end of the domain
// queue (cb_lock held); returns the domain queue's pending count.
u64 splice_locked(rcu_cb_node* first, rcu_cb_node* last, u64 n, u64 max_snap) noexcept {
  if (g.torn_down) return 0;  // MR-25 only: dropped
  if (max_snap > g.max_snap) g.max_snap = max_snap;
  if (g.tail) {
    g.tail->next = first;
  } else {
    g.head = first;
    g.head_snap.store(first->snap, std::memory_order_seq_cst);
  }
  g.tail = last;
  g.enq_count += n;
  return g.enq_count - g.taken_count;
}

void empty(cb_queue& q) noexcept {
  q.head = q.tail = nullptr;
  q.count = 0;
  q.max_snap = 0;
}

// Moves q into the domain queue (q's lock held); returns the domain queue's pending count.
u64 flush_locked(cb_queue& q) noexcept {
  if (q.count == 0) return 0;
  g.cb_lock.lock();
  const u64 pending = splice_locked(q.head, q.tail, q.count, q.max_snap);
  g.cb_lock.unlock();
  empty(q);
  return pending;
}

void link_queue(cb_queue& q) noexcept {  // queues_lock held
  q.prev = nullptr;
  q.next = g.queues;
  if (g.queues) g.queues->prev = &q;
  g.queues = &q;
}
void unlink_queue(cb_queue& q) noexcept {  // queues_lock held
  if (q.prev) q.prev->next = q.next; else g.queues = q.next;
  if (q.next) q.next->prev = q.prev;
  q.prev = q.next = nullptr;
}

// The thread's first retire: link its queue and arm the hand-over at its exit; without
// that hook the queue is closed (its retires go to the domain queue directly).
void open_queue(cb_queue& q) noexcept {
  if (!g_cb_queue_key_ok || ::pthread_setspecific(g_cb_queue_key, &q) != 0) {
    q.st = cb_queue::state::closed;
    return;
  }
  g.queues_lock.lock();
  link_queue(q);
  q.st = cb_queue::state::linked;
  g.queues_lock.unlock();
}

// rcu_barrier: every linked queue into the domain queue.
void collect_queues() noexcept {
  g.queues_lock.lock();
  for (cb_queue* q = g.queues; q; q = q->next) {
    q->lock.lock();
    (void)flush_locked(*q);
    q->lock.unlock();
  }
  g.queues_lock.unlock();
}

// MR-97: the exiting owner moves its queue without the queue's lock ("nobody else appends
// to it"), and empties it only after the splice: a barrier collecting the queue meanwhile
// moves the same nodes too, and each runs twice.
void mutant_hand_over_unlocked(cb_queue& q) noexcept {
  rcu_cb_node* const head = q.head;
  rcu_cb_node* const tail = q.tail;
  const u64 count = q.count, max_snap = q.max_snap;
  for (int i = 0; i < 8; ++i) SAFERECL_MUTANT_WIDEN_WINDOW();
  if (count != 0) {
    g.cb_lock.lock();
    (void)splice_locked(head, tail, count, max_snap);
    g.cb_lock.unlock();
  }
  empty(q);
}

// g_cb_queue_key's destructor, at the thread's exit: the queue into the domain queue, then
// out of the list, in one critical section of queues_lock (the design comment, HAND-OVER).
void hand_over_queue(void* p) noexcept {
  cb_queue& q = *static_cast<cb_queue*>(p);
  if (SAFERECL_MUTANT("MR-97")) mutant_hand_over_unlocked(q);
  // MR-14: out of the list first, handed over only after: a barrier in between misses it.
  const bool unlink_first = SAFERECL_MUTANT("MR-14");
  g.queues_lock.lock();
  if (unlink_first) {
    unlink_queue(q);
    g.queues_lock.unlock();
    for (int i = 0; i < 8; ++i) SAFERECL_MUTANT_WIDEN_WINDOW();
    g.queues_lock.lock();
  }
  q.lock.lock();
  (void)flush_locked(q);
  if (!unlink_first) unlink_queue(q);
  q.st = cb_queue::state::closed;
  q.lock.unlock();
  g.queues_lock.unlock();
}

void queues_fork_prepare() noexcept {
  g.queues_lock.lock();
  for (cb_queue* q = g.queues; q; q = q->next) q->lock.lock();
}
void queues_fork_parent() noexcept {
  for (cb_queue* q = g.queues; q; q = q->next) q->lock.unlock();
  g.queues_lock.unlock();
}
// In the child, with cb_lock held: only the forking thread exists, so every other queue
// moves into the domain queue and leaves the list (its memory becomes a new thread's TLS).
void queues_fork_child() noexcept {
  for (cb_queue* q = g.queues; q;) {
    cb_queue* const nx = q->next;
    if (q != &t_cb_queue) {
      if (q->count != 0) (void)splice_locked(q->head, q->tail, q->count, q->max_snap);
      empty(*q);
      unlink_queue(*q);
    }
    q = nx;
  }
  t_cb_queue.lock.reset();
  g.queues_lock.reset();
}

// ------------------------------------------------------------------- teardown (MR-25 only)
void teardown_drop() noexcept {  // the domain "shuts down" at exit and drops what is queued
  g.cb_lock.lock();
  g.head = g.tail = nullptr;
  g.taken_count = g.enq_count;
  g.torn_down = true;
  g.cb_lock.unlock();
}

// Sets the ready hint when the queue head has become runnable.
void publish_ready_hint(rcu_domain& d) noexcept {
  if (g.head_snap.load(std::memory_order_seq_cst) <= g.gp_seq.load(std::memory_order_seq_cst))
    acc::flags(d).fetch_or(kRcuCallbacksReady, std::memory_order_seq_cst);
}


// ------------------------------------------------------- NB-R11: a lazy, slow drainer
// Conforming variant: user threads run callbacks only once kLazyHighWater are pending, one
// small batch per retire; unlock runs none; each batch runs newest first; rcu_barrier runs
// one batch at a time and sleeps 1 ms between batches, so a backlog of that size takes it
// about ten seconds. It is progressing all the while: a watchdog that counts only a barrier's
// return calls it hung, one that watches the deleters run does not. The high water is a
// count, as a real design's would be, below RX-06's floor: at TSan's speed (200,000 retires a
// second here) a count of 200,000 held callbacks for a second and more, which RX-06 rightly
// calls a backlog that does not drain.
constexpr u64 kLazyHighWater = 40'000;
constexpr u64 kLazyBatch = 4;
bool lazy_drainer() noexcept { return SAFERECL_MUTANT("NB-R11"); }

void run_newest_first(rcu_cb_node* first, u64 n) noexcept {
  rcu_cb_node* batch[kLazyBatch];
  for (u64 i = 0; i < n; ++i, first = first->next) batch[i] = first;
  while (n > 0) {
    rcu_cb_node* p = batch[--n];
    p->invoke(p);
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
  if (g.max_snap <= done && !lazy_drainer()) {  // the whole queue, without a walk through it
    last = g.tail;
    n = g.enq_count - g.taken_count;
  } else {
    const u64 most = lazy_drainer() ? kLazyBatch : ~u64{0};  // NB-R11: a small batch
    for (rcu_cb_node* p = first; p != nullptr && p->snap <= done && n < most; p = p->next) {
      last = p;
      ++n;
    }
  }
  if (n == 0) {
    g.cb_lock.unlock();
    return false;
  }
  const u64 lo = g.taken_count;  // the domain-queue position of `first`
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
  if (SAFERECL_MUTANT("NB-R39")) return run_helped(first, lo, n);  // conforming (issue 39)
  if (SAFERECL_MUTANT("MR-81")) {  // taken; submitted to the in-flight set only after a
    g.cb_lock.unlock();              // walk over the batch outside the lock (window widened
    for (rcu_cb_node* p = first; p != last; p = p->next) SAFERECL_MUTANT_WIDEN_WINDOW();
    g.cb_lock.lock();                // per node: a longer batch, a wider window)
  }
  inflight_ticket t{lo, &t_in_executor, nullptr, g.inflight};
  if (g.inflight) g.inflight->prev = &t;
  g.inflight = &t;
  // MR-10: deleters run under the queue locks, the domain's and the thread's own (which
  // every retire takes)
  const bool hold = SAFERECL_MUTANT("MR-10");
  if (hold) t_cb_queue.lock.lock();
  else g.cb_lock.unlock();

  const bool outer = t_in_executor;
  t_in_executor = true;
  const u64 batch = n;
  if (lazy_drainer()) {
    run_newest_first(first, n);
  } else {
    for (rcu_cb_node* p = first; n-- > 0;) {
      rcu_cb_node* nx = p->next;  // p is gone after invoke
      p->invoke(p);
      p = nx;
    }
  }
  t_in_executor = outer;

  if (hold) t_cb_queue.lock.unlock();
  else g.cb_lock.lock();
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
  const u64 target = g.tail ? g.max_snap : 0;
  g.cb_lock.unlock();
  drive_until(d, target);
  run_ready(d, true);
}

// ------------------------------------------------------- NB-R4: a dedicated callback thread
// Conforming variant: one process-wide thread runs every deleter; retire, rcu_retire and
// unlock only queue, and rcu_barrier waits for that thread instead of running deleters
// itself (it still drives grace periods, as any caller may). Stopped and joined at exit,
// after which barriers run deleters themselves; started afresh in a forked child.
void* callback_worker_main(void*);
void stop_callback_worker() noexcept;
void callback_worker_fork_child() noexcept;
constinit background_thread g_worker{&callback_worker_main, &stop_callback_worker,
                                     &callback_worker_fork_child};
void stop_callback_worker() noexcept { g_worker.stop(); }

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
        g_worker.stop_requested())
      return;
    ::usleep(1000);
  }
}

void* callback_worker_main(void*) {
  rcu_domain& d = rcu_default_domain();
  while (!g_worker.stop_requested()) {
    if (pending_count() != 0) {
      if (SAFERECL_MUTANT("NB-R10")) lazy_batch_delay();
      drive_and_run(d);
    } else {
      ::usleep(200);
    }
  }
  return nullptr;
}

// NB-R10 only: this process is a forked child, which gets no callback thread (its callers
// run deleters themselves, as after exit): no thread is started after a fork.
std::atomic<bool> g_worker_forked{false};

void callback_worker_fork_child() noexcept {
  g_worker.forget();
  g_worker_forked.store(true);
}

// NB-R4 and NB-R10 only: true while the worker runs deleters (started here on first use).
bool callback_worker_runs() noexcept {
  const bool lazy = SAFERECL_MUTANT("NB-R10");
  if (!SAFERECL_MUTANT("NB-R4") && !lazy) return false;
  if (lazy && g_worker_forked.load(std::memory_order_relaxed)) return false;
  return g_worker.start() && g_worker.runs_here();
}


// ------------------------------------------- NB-R39: barriers help run batches in flight
// Conforming variant (issue 39): an executor's detached batch stays open. Executor and
// barriers claim its nodes one at a time under cb_lock and run them outside it; a barrier
// that finds an earlier batch in flight helps run it instead of sleeping, and the executor
// unlinks its ticket only once every claimed node has finished.
struct helped_ticket : inflight_ticket {
  rcu_cb_node* rest;  // the next node nobody has claimed
  u64 left;           // nodes not yet claimed
  u64 running;        // claimed, not yet finished
};

// Bumps the barrier futex for sleepers (cb_lock held); the caller wakes them.
bool note_finish_locked() noexcept {
  if (g.barrier_waiters == 0) return false;
  g.barrier_futex.fetch_add(1, std::memory_order_release);
  return true;
}

// Claims and runs one node of `t` (cb_lock held on entry and on return); false: none left.
bool help_one(helped_ticket& t) noexcept {
  if (t.left == 0) return false;
  rcu_cb_node* const p = t.rest;
  t.rest = p->next;  // read before p runs: p is gone after invoke
  --t.left;
  ++t.running;
  g.cb_lock.unlock();
  const bool outer = t_in_executor;
  t_in_executor = true;
  p->invoke(p);
  t_in_executor = outer;
  g.cb_lock.lock();
  --t.running;
  ++g.finished_count;
  if (note_finish_locked()) futex_wake_all(g.barrier_futex);
  return true;
}

// The executor's side: cb_lock held on entry, released on return.
bool run_helped(rcu_cb_node* first, u64 lo, u64 n) noexcept {
  helped_ticket t;
  t.lo = lo;
  t.owner = &t_in_executor;
  t.prev = nullptr;
  t.next = g.inflight;
  t.rest = first;
  t.left = n;
  t.running = 0;
  if (g.inflight) g.inflight->prev = &t;
  g.inflight = &t;
  while (help_one(t)) {}
  while (t.running != 0) {  // helpers still run nodes of this batch
    const u32 seen = g.barrier_futex.load(std::memory_order_relaxed);
    ++g.barrier_waiters;
    g.cb_lock.unlock();
    futex_wait(g.barrier_futex, seen);
    g.cb_lock.lock();
    --g.barrier_waiters;
  }
  if (t.prev) t.prev->next = t.next; else g.inflight = t.next;
  if (t.next) t.next->prev = t.prev;
  const bool wake = note_finish_locked();
  g.cb_lock.unlock();
  if (wake) futex_wake_all(g.barrier_futex);
  return true;
}

// A barrier's help (cb_lock held): runs one unclaimed node of a batch in flight that began
// before `target`; false if there is none.
bool help_inflight(u64 target) noexcept {
  for (inflight_ticket* t = g.inflight; t; t = t->next)
    if (t->lo < target && help_one(*static_cast<helped_ticket*>(t))) return true;
  return false;
}

// ------------------------------------------- NB-R50: a lock-free-fed executor thread
// Conforming variant: one thread runs every deleter, and nothing of it is ordered with other
// threads but what rcu_barrier must order. A retire pushes its node onto a lock-free stack
// (a release CAS) and returns; the executor takes the stack (an acquire exchange, which
// releases nothing back), drives a grace period that begins after the take, and runs the
// batch in retire order. A deleter's own retire joins the executor's next batch. rcu_barrier
// pushes a marker of its own and polls (nanosleep) until the executor, running in retire
// order on one thread, reaches it: the marker's release store follows every earlier
// deleter's run, the barrier's acquire load of it gives the happens-before
// [saferecl.rcu.domain.func]/5 asks. No mutex, condition variable or join; the executor is
// abandoned at exit (it keeps serving barriers in static destructors) and a forked child
// starts one of its own.
struct r50_marker : rcu_cb_node {
  std::atomic<bool> reached{false};
};

std::atomic<rcu_cb_node*> g_r50_stack{nullptr};
thread_local constinit bool t_r50_executor = false;
thread_local constinit rcu_cb_node* t_r50_next_head = nullptr;  // what deleters retired
thread_local constinit rcu_cb_node* t_r50_next_tail = nullptr;

void r50_nap(long nanoseconds) noexcept {
  timespec ts{0, nanoseconds};
  (void)::nanosleep(&ts, nullptr);
}

void* r50_executor_main(void*);
void r50_abandon_at_exit() noexcept {}
void r50_forget_in_child() noexcept;
constinit background_thread g_r50_executor{&r50_executor_main, &r50_abandon_at_exit,
                                           &r50_forget_in_child};
void r50_forget_in_child() noexcept {
  g_r50_executor.forget();  // the parent's batch in flight is lost here: never run
}

// The taken stack (newest first) reversed behind what deleters retired: retire order.
rcu_cb_node* r50_next_batch() noexcept {
  rcu_cb_node* fifo = nullptr;
  for (rcu_cb_node* p = g_r50_stack.exchange(nullptr, std::memory_order_acquire); p != nullptr;) {
    rcu_cb_node* nx = p->next;
    p->next = fifo;
    fifo = p;
    p = nx;
  }
  if (t_r50_next_head == nullptr) return fifo;
  rcu_cb_node* const first = t_r50_next_head;
  t_r50_next_tail->next = fifo;
  t_r50_next_head = t_r50_next_tail = nullptr;
  return first;
}

void* r50_executor_main(void*) {
  t_r50_executor = true;
  t_in_executor = true;  // a deleter's unlock runs nothing
  rcu_domain& d = rcu_default_domain();
  for (;;) {
    rcu_cb_node* batch = r50_next_batch();
    if (batch == nullptr) {
      r50_nap(100'000);
      continue;
    }
    drive_until(d, target_after(g.gp_seq.load(std::memory_order_seq_cst)));
    while (batch != nullptr) {
      rcu_cb_node* nx = batch->next;  // batch is gone after invoke
      batch->invoke(batch);
      batch = nx;
    }
  }
}

void r50_push(rcu_cb_node* n) noexcept {
  while (!g_r50_executor.start()) r50_nap(1'000'000);  // pthread_create failed: retry
  rcu_cb_node* head = g_r50_stack.load(std::memory_order_relaxed);
  do {
    n->next = head;
  } while (!g_r50_stack.compare_exchange_weak(head, n, std::memory_order_release,
                                              std::memory_order_relaxed));
}

bool r50_enqueue(rcu_cb_node* n) noexcept {
  if (!SAFERECL_MUTANT("NB-R50")) return false;
  light_fence();  // (a): the caller's unlink before the grace period the executor begins
  n->next = nullptr;
  if (t_r50_executor) {
    (t_r50_next_tail ? t_r50_next_tail->next : t_r50_next_head) = n;
    t_r50_next_tail = n;
    return true;
  }
  r50_push(n);
  return true;
}

bool r50_barrier() noexcept {
  if (!SAFERECL_MUTANT("NB-R50")) return false;
  if (t_r50_executor) return true;  // inside a deleter: re-entrancy is implementation-defined
  r50_marker m;
  m.invoke = [](rcu_cb_node* n) noexcept {
    static_cast<r50_marker*>(n)->reached.store(true, std::memory_order_release);
  };
  r50_push(&m);
  while (!m.reached.load(std::memory_order_acquire)) r50_nap(50'000);
  return true;
}

}  // namespace rcu_impl

using namespace rcu_impl;


void rcu_enqueue(rcu_domain& d, rcu_cb_node* n) noexcept {
  ensure_init();
  if (r50_enqueue(n)) return;  // NB-R50 (conforming): handed to the executor
  if (SAFERECL_MUTANT("MR-02")) { n->invoke(n); return; }  // deleter runs inside retire
  light_fence();  // (a): the caller's unlink before the snapshot of gp_seq
  const u64 s = g.gp_seq.load(std::memory_order_seq_cst);
  const u64 target = SAFERECL_MUTANT("MR-04") ? target_joining(s) : target_after(s);
  n->snap = target;
  n->next = nullptr;
  u64 pending = 0;  // the domain queue's, if this retire moved evaluations into it
  cb_queue& q = t_cb_queue;
  if (q.st == cb_queue::state::unlinked) [[unlikely]] open_queue(q);
  if (q.st == cb_queue::state::linked) [[likely]] {
    q.lock.lock();
    (q.tail ? q.tail->next : q.head) = n;
    q.tail = n;
    if (target > q.max_snap) q.max_snap = target;
    if (++q.count >= kLocalBatch) pending = flush_locked(q);
    q.lock.unlock();
  } else {  // closed: past the thread's hand-over at exit, or no exit hook
    g.cb_lock.lock();
    pending = splice_locked(n, n, 1, target);
    g.cb_lock.unlock();
  }
  // n may already be running on another thread: do not touch it any more.

  // NB-R3 (conforming): no early start; a barrier then waits for regions begun after this.
  if (!SAFERECL_MUTANT("NB-R3") && !grace_period_running()) begin_grace_period_early(d);
  const bool over = pending >= (lazy_drainer() ? kLazyHighWater : kRcuRetireThreshold);
  if (SAFERECL_MUTANT("MR-09") && over) drive_until(d, target);  // waits even in a region
  if (t_in_executor || SAFERECL_MUTANT("NB-R2")) return;  // a deleter's retire only queues
  if (callback_worker_runs()) return;  // NB-R4: the worker drives and runs
  if (in_own_region()) {      // never run or wait inside one's own region: defer
    std::atomic<u64>& w = tls_rcu_reader.ctr;  // the outermost unlock drives instead
    if (over) w.store(w.load(std::memory_order_relaxed) | kRcuOwesBit, kRcuPublish);
    return;
  }
  if (over && lazy_drainer()) {  // NB-R11: one batch, or a grace period when none is ready
    if (!run_ready(d, true)) drive_until(d, target);
  } else if (over) {
    drive_until(d, target);
    run_ready(d, true);
  } else if ((acc::flags(d).load(std::memory_order_relaxed) & kRcuCallbacksReady) != 0) {
    run_ready(d, false);
  }
}

}  // namespace saferecl::detail

namespace saferecl {

void rcu_barrier(rcu_domain& d) noexcept {
  using detail::g;
  if (SAFERECL_MUTANT("MR-28")) return rcu_synchronize(d);  // waits for runnable, not for run
  detail::ensure_init();
  if (detail::r50_barrier()) return;  // NB-R50 (conforming): waits for the executor
  if (SAFERECL_MUTANT("MR-33")) detail::mutant_allocate(sizeof(detail::inflight_ticket));  // waiter
  detail::collect_queues();  // every thread's queue into the domain queue
  g.cb_lock.lock();
  const std::uint64_t target = g.enq_count;  // every evaluation queued before this call
  const std::uint64_t target_snap = g.max_snap;
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
      if (detail::lazy_drainer()) ::usleep(1000);  // NB-R11: a pause between batches
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
    if (SAFERECL_MUTANT("NB-R39") && detail::help_inflight(target)) continue;  // helps instead
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
