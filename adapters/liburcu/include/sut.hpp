// sut.hpp for the `liburcu` adapter: <rcu> over the userspace RCU library (urcu-memb flavor).
//
// How liburcu's concepts map onto the standard's (P2545R4, [saferecl.rcu]):
//
//   standard                        liburcu (urcu-memb, _LGPL_SOURCE inline read side)
//   ------------------------------  -------------------------------------------------------
//   rcu_domain (the default one)    the flavor's single global grace-period domain
//   rcu_domain::lock / unlock       urcu_memb_read_lock / _unlock (inline; nestable), after a
//                                   lazy urcu_memb_register_thread() on the thread's first
//                                   use; a pthread key destructor unregisters at thread exit
//   rcu_domain::try_lock            lock(), then true (the standard's definition)
//   rcu_synchronize                 urcu_memb_synchronize_rcu
//   rcu_barrier                     urcu_memb_barrier (waits for every queued call_rcu)
//   rcu_obj_base<T,D>::retire(d)    call_rcu on an rcu_head embedded in the base; the stored
//                                   deleter D is moved out and invoked with the complete T*
//   rcu_retire(p, d)                call_rcu on a heap node {rcu_head, p, d} (one allocation)
//
// What differs from the standard (each shows up as a failing test, not hidden here; the
// paragraphs are in adapters/liburcu/README.md):
//   * Deleters run on liburcu's call_rcu helper thread, never on the thread that calls
//     retire / unlock / rcu_barrier ("may run" in the standard: allowed).
//   * urcu_memb_barrier() called inside a read-side critical section prints an error and
//     returns at once, without waiting ([saferecl.rcu.domain.func]/4 has no such exception
//     for evaluations that need no grace period from this thread).
//   * rcu_barrier() runs a grace period, so it also waits for readers that began after it
//     was called ([saferecl.rcu.general]/5 does not make them delay anything: strict R4).
//   * No hazard pointers: liburcu has none (SUT_HAS_HAZARD_POINTER 0).
//
// SUT_NATIVE_API is 0: these signatures are this adapter's, written to the standard's shape;
// the API-shape and must-not-compile tests do not judge them.
//
// ThreadSanitizer. liburcu is not instrumented and orders readers against grace periods with
// membarrier(2) and plain/volatile accesses, which TSan cannot see. The adapter states the
// happens-before edges the library guarantees, with __tsan_release/__tsan_acquire on three
// addresses:
//   unlock()                 release(readers)    the end of every region ...
//   rcu_synchronize() after  acquire(readers)    ... happens before a later synchronize
//   deleter, before running  acquire(readers)    ... and before a deleter runs, and
//                            acquire(node)       retire(node) happens before its deleter;
//   deleter, after running   release(callbacks)  every finished deleter happens before
//   rcu_barrier() after      acquire(callbacks)  ... the barrier that waited for it.
// The readers edge over-approximates (it also orders regions that began after the grace
// period started), which can hide a real race but never reports a false one.
// The annotations compile away without TSan.
#pragma once

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE 1  // the inline read side, as performance-minded users build liburcu
#endif
#include <urcu/urcu-memb.h>  // only this flavor header: mixing flavor headers clashes

#include <pthread.h>

#include <adapter_kit.hpp>

#define SUT_NAME "liburcu"
#define SUT_HAS_HAZARD_POINTER 0
#define SUT_HAS_RCU 1
#define SUT_HAS_HP_BATCH 0
#define SUT_NATIVE_API 0

namespace sut::liburcu_detail {

using saferecl_kit::tsan_acquire;
using saferecl_kit::tsan_release;

// Synchronization addresses of the annotations (see the top of the file).
inline char readers_sync;
inline char callbacks_sync;

// Lazy registration, keyed on liburcu's own per-thread flag (its call_rcu threads, where the
// deleters run, are registered by liburcu itself). A pthread key destructor unregisters the
// threads the adapter registered: glibc runs those after every C++ thread_local destructor,
// so regions opened by thread_local destructors still find the thread registered. (A thread
// that exits registered leaves a dangling reader in liburcu's registry, and the next grace
// period reads freed memory.)
inline bool registered() noexcept { return URCU_TLS(urcu_memb_reader).registered; }

inline void unregister_at_exit(void*) noexcept {
  if (registered()) urcu_memb_unregister_thread();
}

// fork(): liburcu's call_rcu helper threads do not survive in a child; liburcu asks
// applications that fork and then use call_rcu to bracket fork with these three calls.
inline void install_fork_handlers() noexcept {
  static const bool installed = [] {
    pthread_atfork(&urcu_memb_call_rcu_before_fork, &urcu_memb_call_rcu_after_fork_parent,
                   &urcu_memb_call_rcu_after_fork_child);
    return true;
  }();
  (void)installed;
}

[[gnu::noinline, gnu::cold]] inline void register_slow() noexcept {
  install_fork_handlers();
  urcu_memb_register_thread();
  saferecl_kit::thread_exit<&unregister_at_exit>::arm();
}

inline void ensure_registered() noexcept {
  if (!registered()) [[unlikely]]
    register_slow();
}

// The part of a scheduled evaluation that liburcu sees: an rcu_head, first member of a
// standard-layout struct, so the callback can get back from the rcu_head to the node.
struct callback_node {
  rcu_head urcu_head;
};

// Runs on liburcu's call_rcu thread, after a grace period.
template <class U, class Reclaim>
void run_callback(rcu_head* head) noexcept {
  tsan_acquire(head);
  tsan_acquire(&readers_sync);
  auto* node = reinterpret_cast<callback_node*>(head);  // pointer-interconvertible (first member)
  Reclaim::run(static_cast<U*>(node));
  tsan_release(&callbacks_sync);
}

struct rcu {
  static void enter() noexcept {
    ensure_registered();
    urcu_memb_read_lock();
  }
  static void leave() noexcept {
    tsan_release(&readers_sync);
    urcu_memb_read_unlock();
  }

  static void synchronize() noexcept {
    urcu_memb_synchronize_rcu();
    tsan_acquire(&readers_sync);
  }

  static void barrier() noexcept {
    ensure_registered();  // urcu_memb_barrier takes the read lock internally
    urcu_memb_barrier();
    tsan_acquire(&callbacks_sync);
  }

  template <class U, class Reclaim>
  using node = callback_node;

  template <class Reclaim, class U>
  static void defer(U* object) noexcept {
    ensure_registered();  // "call_rcu should be called from registered RCU read-side threads"
    callback_node* node = object;
    tsan_release(node);
    urcu_memb_call_rcu(&node->urcu_head, &run_callback<U, Reclaim>);
  }
};

}  // namespace sut::liburcu_detail

namespace sut::library {
using rcu = liburcu_detail::rcu;
}

#include <adapter_kit/standard_names.hpp>
