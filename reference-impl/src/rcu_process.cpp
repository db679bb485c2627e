// rcu_process.cpp -- <rcu>, process-wide: the default domain and the state behind it, the
// one-time initialization (fence mode, the thread-exit keys, fork handlers) and fork: the
// child keeps only the forking thread's record, adopts the evaluations other threads had
// queued and abandons what they were doing.
#include "rcu_internal.hpp"

#include <cstdlib>
#include <new>

namespace saferecl {

constinit rcu_domain rcu_domain::s_default_;

namespace detail::rcu_impl {

constinit rcu_state g;

pthread_once_t g_once = PTHREAD_ONCE_INIT;
std::atomic<bool> g_inited{false};
pthread_key_t g_exit_key;
bool g_exit_key_ok = false;
bool g_symmetric = false;  // no membarrier: readers' words carry kRcuSpecialBit, they fence
pthread_key_t g_node_cache_key;
bool g_node_cache_key_ok = false;
pthread_key_t g_cb_queue_key;
bool g_cb_queue_key_ok = false;

// ---------------------------------------------------------------------------------- fork
void fork_prepare() noexcept {
  queues_fork_prepare();
  g.cb_lock.lock();
}
void fork_parent() noexcept {
  g.cb_lock.unlock();
  queues_fork_parent();
}
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
  queues_fork_child();  // cb_lock still held: the other threads' queues move in
  g.cb_lock.reset();
}

void init_once() noexcept {
  g_symmetric = current_fence_mode() != fence_mode::asymmetric;  // decided for good
  g_exit_key_ok = ::pthread_key_create(&g_exit_key, &thread_exit) == 0;
  g_node_cache_key_ok = ::pthread_key_create(&g_node_cache_key, &close_node_cache) == 0;
  g_cb_queue_key_ok = ::pthread_key_create(&g_cb_queue_key, &hand_over_queue) == 0;
  (void)::pthread_atfork(&fork_prepare, &fork_parent, &fork_child);
  if (SAFERECL_MUTANT("MR-25")) (void)std::atexit(&teardown_drop);
  g_inited.store(true, std::memory_order_release);
}

// MR-33, MR-34: an allocation that a mutant's design makes (a per-call waiter record, a
// heap-allocated reader record). It is kept reachable, so the compiler cannot elide it;
// called from a noexcept function, its bad_alloc terminates.
std::atomic<void*> g_mutant_allocation{nullptr};
void mutant_allocate(std::size_t n) {
  ::operator delete(g_mutant_allocation.exchange(::operator new(n), std::memory_order_acq_rel));
}

}  // namespace detail::rcu_impl
}  // namespace saferecl
