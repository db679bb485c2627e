// sut.hpp for the `libcds` adapter: <hazard_pointer> over cds::gc::HP and <rcu> over
// cds::urcu general_threaded, from libcds (Concurrent Data Structures library).
//
// How libcds's concepts map onto the standard's:
//
//   standard                          libcds
//   --------------------------------  ----------------------------------------------------
//   (implicit, per process)           cds::Initialize(); cds::gc::hp::smr::construct(K);
//                                     general_threaded<>::Construct(buffer) -- once, on
//                                     first use
//   (implicit, per thread)            cds::threading::Manager::attachThread() on a thread's
//                                     first use; detachThread() from a pthread key
//                                     destructor at thread exit
//   hazard_pointer                    a cds::gc::HP::Guard (one slot of the creating thread's
//                                     fixed array of K hazard pointers) + that thread's record
//   make_hazard_pointer()             Guard() -- not_enough_hazard_ptr becomes std::bad_alloc
//   protect(src)                      Guard::protect(src): the library's publish-and-validate
//                                     loop
//   try_protect(ptr, src)             Guard::assign(ptr); reload src; clear when changed (the
//                                     standard's definition, over the library's assign)
//   reset_protection(p) / ()          Guard::assign(p) / Guard::clear()
//   hazard_pointer_obj_base::retire   cds::gc::HP::retire(T*, reclaim): the retired array
//                                     of the retiring thread; scanned when it is full
//   rcu_domain::lock / unlock         rcu::access_lock / access_unlock (nestable)
//   rcu_synchronize                   rcu::synchronize() (flip-and-wait twice; hands the
//                                     buffer to the disposer thread without waiting)
//   rcu_barrier                       rcu::force_dispose(): synchronize, then wait until the
//                                     disposer thread has run every deleter of older epochs
//   rcu_obj_base::retire / rcu_retire rcu::retire_ptr(p, reclaim) into the shared buffer
//                                     (rcu_retire: a heap node {p, d}); the deleter D is
//                                     stored in the object (or node) and invoked intact
//
// What differs from the standard (failing tests, explained in adapters/libcds/README.md):
//   * K hazard pointers per thread, fixed when the library is initialized
//     (SAFERECL_LIBCDS_HAZARD_POINTERS, default 64): make_hazard_pointer() beyond that throws
//     bad_alloc, where the standard limits their number only by memory.
//   * A hazard pointer belongs to its creating thread: its slot is in that thread's array.
//     Destroying (or reassigning) it on another thread would corrupt that thread's free
//     list, so the adapter stops the program with a message instead; and when the creating
//     thread exits, libcds clears every slot of its array, ending protections that a
//     hazard_pointer moved to another thread still holds.
//   * Retiring inside a read-side critical section: every libcds RCU flavor runs a grace
//     period in the retiring thread when its buffer fills, which waits for the retiring
//     thread itself -- a self-deadlock. libcds forbids it (its containers check is_locked()
//     and throw rcu_deadlock); the adapter applies the same check and stops the program with
//     a message, where the standard allows it ([saferecl.rcu.base]/9, R18).
//   * rcu_barrier runs grace periods, so it also waits for readers that began after it was
//     called (strict R4).
//   * No hazard pointer batches (SUT_HAS_HP_BATCH 0): libcds has no batch operation with a
//     runtime size; a loop in the adapter would test the adapter, not libcds.
//
// SUT_NATIVE_API is 0: these signatures are this adapter's.
//
// ThreadSanitizer. libcds.so is not instrumented, but most of it is header code. The edges
// TSan cannot see are annotated with __tsan_release/__tsan_acquire:
//   * the HP scan (in libcds.so) decides that no hazard pointer holds p: every end of a
//     protection of p releases p, and the disposer acquires p before the deleter runs;
//   * retire -> deleter (possibly on another thread after a help-scan): release(p) at
//     retire, acquire(p) in the disposer (the same address, both edges at once);
//   * thread records are recycled between threads inside libcds.so: release(record) before
//     detaching, acquire(record) after attaching;
//   * the RCU thread list is changed inside libcds.so (attach links a record, detach clears
//     its owner) and read by flip_and_wait in header code: attach and detach release
//     registry_sync, every path into a grace period acquires it before and after, and so
//     does every RCU deleter; a grace period may still read a record that attach has linked
//     but not yet returned from, so TSan records no write of attach (the record's allocation:
//     libcds.so is not instrumented, so that is all it would record).
// The rest of the RCU side (access_lock/unlock, flip_and_wait's reads of the nesting words,
// the disposer thread's queue) is header code that TSan sees. One suppression remains, with
// its reason, in adapters/libcds/tsan.supp.
#pragma once

#include <cds/gc/hp.h>
#include <cds/init.h>
#include <cds/threading/model.h>
#include <cds/urcu/general_threaded.h>
#include <cds/version.h>

#include <adapter_kit.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#define SUT_NAME "libcds"
#define SUT_HAS_HAZARD_POINTER 1
#define SUT_HAS_RCU 1
#define SUT_HAS_HP_BATCH 0
#define SUT_NATIVE_API 0

#ifndef SAFERECL_LIBCDS_HAZARD_POINTERS
#define SAFERECL_LIBCDS_HAZARD_POINTERS 64  // per thread; libcds's own default is 8
#endif

namespace sut::libcds_detail {

using saferecl_kit::tsan_acquire;
using saferecl_kit::tsan_release;

using rcu_gc = cds::urcu::gc<cds::urcu::general_threaded<>>;
using rcu_impl = rcu_gc::rcu_implementation;
inline constexpr std::size_t kHazardPointersPerThread = SAFERECL_LIBCDS_HAZARD_POINTERS;
inline constexpr std::size_t kRcuBufferCapacity = 256;  // libcds's default threshold

// A difference from the standard that would otherwise corrupt memory or hang.
[[noreturn, gnu::cold]] inline void unsupported(const char* what) noexcept {
  saferecl_kit::unsupported("libcds", what);
}

constinit inline thread_local bool attached = false;

// TSan: libcds.so links a new thread record into the RCU thread list, and clears its owner
// when the thread detaches, with uninstrumented stores; flip_and_wait (header code) reads
// them. Attaching and detaching release this address; every path into a grace period
// acquires it before, and after. The deleters acquire it too.
inline char registry_sync;

inline void* rcu_record() noexcept { return cds::threading::getRCU<rcu_impl::rcu_tag>(); }

inline void detach_at_exit(void*) noexcept {
  if (!attached) return;
  tsan_release(cds::gc::hp::smr::tls());
  tsan_release(rcu_record());
  tsan_release(&registry_sync);
  attached = false;
  cds::threading::Manager::detachThread();
}

// The process-wide part: created on first use and never destroyed (a hazard pointer or a
// pending deleter may outlive main; the singletons stay reachable, so no leak is reported).
// libcds allocates with operator new here: bad_alloc propagates, and a later call retries.
inline void start_library() {
  static const bool started = [] {
    // The exit key is created before cds::Initialize() creates libcds's own key: keys are
    // destroyed in creation order, so detach_at_exit runs first and can annotate before
    // libcds detaches.
    saferecl_kit::thread_exit<&detach_at_exit>::key();
    cds::Initialize();
    cds::gc::hp::smr::construct(kHazardPointersPerThread);
    rcu_impl::Construct(kRcuBufferCapacity);
    return true;
  }();
  (void)started;
}

[[gnu::noinline, gnu::cold]] inline void attach_slow() {
  start_library();
  {
    // attachThread allocates the thread's records and links them into libcds's lists inside
    // libcds.so, where TSan sees the allocation but not the publication that orders it before
    // a grace period's reads of the record.
    saferecl_kit::tsan_unrecorded_writes unseen_publication;
    cds::threading::Manager::attachThread();  // attaches to HP and to the RCU singleton
  }
  tsan_acquire(cds::gc::hp::smr::tls());
  tsan_acquire(rcu_record());
  tsan_release(&registry_sync);
  attached = true;
  saferecl_kit::thread_exit<&detach_at_exit>::arm();
}

inline void ensure_attached() {
  if (!attached) [[unlikely]]
    attach_slow();
}

// The error make_hazard_pointer reports when the creating thread's array is exhausted.
struct hazard_pointers_exhausted : std::bad_alloc {
  const char* what() const noexcept override {
    return "libcds: no free hazard pointer in this thread's fixed array "
           "(cds::gc::HP not_enough_hazard_ptr)";
  }
};

// What cds::gc::HP::retire needs inside a retired object: nothing.
struct hp_node {};

// The disposer handed to cds::gc::HP::retire.
template <class U, class Reclaim>
void hp_reclaim(void* p) noexcept {
  tsan_acquire(p);
  Reclaim::run(static_cast<U*>(p));
}

struct hazard_pointers {
  // A cds::gc::HP::Guard (one slot of the creating thread's array) and that thread's record.
  struct slot {
    cds::gc::HP::Guard guard{nullptr};  // unlinked; Guard's moves leave the source unlinked
    cds::gc::hp::thread_data* owner = nullptr;
  };

  static slot make() {
    ensure_attached();
    slot s;
    try {
      s.guard.link();
    } catch (const cds::gc::HP::not_enough_hazard_ptr_exception&) {
      throw hazard_pointers_exhausted();
    }
    s.owner = cds::gc::hp::smr::tls();
    return s;
  }

  static bool empty(const slot& s) noexcept { return !s.guard.is_linked(); }

  // Guard::protect: the library's publish-and-validate loop.
  template <class U>
  static U* protect(slot& s, const std::atomic<U*>& src) noexcept {
    end_protection(s);
    ensure_attached();  // Guard::assign synchronizes through the caller's record
    return s.guard.protect(src);
  }

  template <class U>
  static void publish(slot& s, U* p) noexcept {
    end_protection(s);
    ensure_attached();
    s.guard.assign(p);
  }

  static void clear(slot& s) noexcept {
    end_protection(s);
    s.guard.clear();
  }

  static void release(slot& s) noexcept {
    if (!attached || cds::gc::hp::smr::tls() != s.owner)
      unsupported(
          "destroying a hazard_pointer on a thread other than the one that created it "
          "(a cds::gc::HP guard can only be returned to its own thread's array)");
    end_protection(s);
    s.guard.unlink();
    s.owner = nullptr;
  }

  template <class U, class Reclaim>
  using node = hp_node;

  // cds::gc::HP::retire: the retired array of the retiring thread, scanned when it is full.
  template <class Reclaim, class U>
  static void defer(U* object) noexcept {
    ensure_attached();
    tsan_release(object);
    cds::gc::HP::retire(object, &hp_reclaim<U, Reclaim>);
  }

 private:
  // TSan: whatever this hazard pointer protected may now be reclaimed; everything this
  // thread did with it happens before that.
  static void end_protection(slot& s) noexcept {
#if defined(SAFERECL_KIT_TSAN)
    if (void* p = s.guard.get_native()) tsan_release(p);
#else
    (void)s;
#endif
  }
};

// What rcu::retire_ptr needs inside a retired object: nothing.
struct rcu_node {};

// The disposer handed to rcu::retire_ptr, run by the disposer thread (or by a retiring thread
// whose buffer overflowed).
template <class U, class Reclaim>
void rcu_reclaim(void* p) noexcept {
  tsan_acquire(p);
  tsan_acquire(&registry_sync);
  Reclaim::run(static_cast<U*>(p));
}

struct rcu {
  static void enter() noexcept {
    ensure_attached();
    rcu_gc::access_lock();
  }
  static void leave() noexcept { rcu_gc::access_unlock(); }

  static void synchronize() noexcept {
    start_library();
    tsan_acquire(&registry_sync);
    rcu_gc::synchronize();
    tsan_acquire(&registry_sync);
  }

  static void barrier() noexcept {
    start_library();
    tsan_acquire(&registry_sync);
    rcu_gc::force_dispose();
    tsan_acquire(&registry_sync);
  }

  template <class U, class Reclaim>
  using node = rcu_node;

  // retire_ptr into the shared buffer, with libcds's own deadlock check. (rcu_retire's node
  // is never null: libcds drops null pointers.)
  template <class Reclaim, class U>
  static void defer(U* object) {
    ensure_attached();
    if (rcu_gc::is_locked())
      unsupported(
          "retire inside a read-side critical section: general_threaded::retire_ptr runs a "
          "grace period in the retiring thread whenever its buffer fills, which waits for this "
          "very region (libcds's containers refuse this with cds::urcu::rcu_deadlock)");
    tsan_release(object);
    tsan_acquire(&registry_sync);  // retire_ptr runs a grace period when the buffer fills
    rcu_gc::retire_ptr(static_cast<void*>(object), &rcu_reclaim<U, Reclaim>);
    tsan_acquire(&registry_sync);
  }
};

}  // namespace sut::libcds_detail

namespace sut::library {
using hazard_pointers = libcds_detail::hazard_pointers;
using rcu = libcds_detail::rcu;
}

#include <adapter_kit/standard_names.hpp>
