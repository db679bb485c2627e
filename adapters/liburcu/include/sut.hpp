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

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#define SUT_NAME "liburcu"
#define SUT_HAS_HAZARD_POINTER 0
#define SUT_HAS_RCU 1
#define SUT_HAS_HP_BATCH 0
#define SUT_NATIVE_API 0

namespace sut {
namespace liburcu_detail {

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

inline pthread_key_t exit_key() noexcept {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    pthread_key_create(&k, &unregister_at_exit);
    return k;
  }();
  return key;
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
  static char armed;
  pthread_setspecific(exit_key(), &armed);  // any non-null value arms the destructor
}

inline void ensure_registered() noexcept {
  if (!registered()) [[unlikely]]
    register_slow();
}

// The part of a scheduled evaluation that liburcu sees: an rcu_head, first member of a
// standard-layout struct, so the callback can get back from the rcu_head to the node.
struct callback_node {
  rcu_head head;
};

inline callback_node* node_of(rcu_head* head) noexcept {
  return reinterpret_cast<callback_node*>(head);  // pointer-interconvertible (first member)
}

// Hands `node` to call_rcu; `run` will be called on liburcu's call_rcu thread after a
// grace period.
inline void schedule(callback_node* node, void (*run)(rcu_head*)) noexcept {
  ensure_registered();  // "call_rcu should be called from registered RCU read-side threads"
  tsan_release(node);
  urcu_memb_call_rcu(&node->head, run);
}

// Brackets every deleter invocation on the call_rcu thread.
struct callback_scope {
  explicit callback_scope(rcu_head* head) noexcept {
    tsan_acquire(head);
    tsan_acquire(&readers_sync);
  }
  ~callback_scope() { tsan_release(&callbacks_sync); }
  callback_scope(const callback_scope&) = delete;
  callback_scope& operator=(const callback_scope&) = delete;
};

// rcu_retire's heap node: the pointer and the deleter d1, move-initialized from d.
template <class T, class D>
struct retire_node : callback_node {
  retire_node(T* p, D&& d) : ptr(p), deleter(std::move(d)) {}
  T* ptr;
  D deleter;

  static void run(rcu_head* head) noexcept {
    callback_scope scope(head);
    auto* self = static_cast<retire_node*>(node_of(head));
    self->deleter(self->ptr);
    delete self;
  }
};

}  // namespace liburcu_detail

namespace liburcu_detail {
struct rcu_region {
  static void enter() noexcept {
    ensure_registered();
    urcu_memb_read_lock();
  }
  static void leave() noexcept {
    tsan_release(&readers_sync);
    urcu_memb_read_unlock();
  }
};
}  // namespace liburcu_detail

using rcu_domain = saferecl_kit::rcu_domain<liburcu_detail::rcu_region>;

inline rcu_domain& rcu_default_domain() noexcept { return rcu_domain::default_domain(); }

inline void rcu_synchronize(rcu_domain& = rcu_default_domain()) noexcept {
  urcu_memb_synchronize_rcu();
  liburcu_detail::tsan_acquire(&liburcu_detail::readers_sync);
}

inline void rcu_barrier(rcu_domain& = rcu_default_domain()) noexcept {
  liburcu_detail::ensure_registered();  // urcu_memb_barrier takes the read lock internally
  urcu_memb_barrier();
  liburcu_detail::tsan_acquire(&liburcu_detail::callbacks_sync);
}

template <class T, class D = std::default_delete<T>>
void rcu_retire(T* p, D d = D(), rcu_domain& = rcu_default_domain()) {
  saferecl_kit::check_rcu_retire_mandates<T, D>();
  using node = liburcu_detail::retire_node<T, D>;
  auto* n = new node(p, std::move(d));  // bad_alloc, or d1's initialization, may throw
  liburcu_detail::schedule(n, &node::run);
}

// The standard's shape: retire() public; every special member protected and defaulted.
// The rcu_head lives in a private base, so T stays free to have any members it likes.
template <class T, class D = std::default_delete<T>>
class rcu_obj_base : private liburcu_detail::callback_node {
 public:
  void retire(D d = D(), rcu_domain& = rcu_default_domain()) noexcept {
    deleter_ = std::move(d);
    liburcu_detail::schedule(this, &rcu_obj_base::run);
  }

 protected:
  rcu_obj_base() = default;
  rcu_obj_base(const rcu_obj_base&) = default;
  rcu_obj_base(rcu_obj_base&&) = default;
  rcu_obj_base& operator=(const rcu_obj_base&) = default;
  rcu_obj_base& operator=(rcu_obj_base&&) = default;
  ~rcu_obj_base() = default;

 private:
  static void run(rcu_head* head) noexcept {
    liburcu_detail::callback_scope scope(head);
    auto* self = static_cast<rcu_obj_base*>(liburcu_detail::node_of(head));
    D deleter = std::move(self->deleter_);  // the object (and its deleter member) dies next
    deleter(static_cast<T*>(self));         // the complete object: no unary & involved
  }

  D deleter_ = D();
};

}  // namespace sut
