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
//     does every RCU deleter.
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

#include <pthread.h>

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

namespace sut {
namespace libcds_detail {

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
inline pthread_key_t exit_key() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    // Created before cds::Initialize() creates libcds's own key: keys are destroyed in
    // creation order, so this destructor runs first and can annotate before libcds detaches.
    pthread_key_create(&k, &detach_at_exit);
    cds::Initialize();
    cds::gc::hp::smr::construct(kHazardPointersPerThread);
    rcu_impl::Construct(kRcuBufferCapacity);
    return k;
  }();
  return key;
}

[[gnu::noinline, gnu::cold]] inline void attach_slow() {
  pthread_key_t key = exit_key();
  cds::threading::Manager::attachThread();  // attaches to HP and to the RCU singleton
  tsan_acquire(cds::gc::hp::smr::tls());
  tsan_acquire(rcu_record());
  tsan_release(&registry_sync);
  attached = true;
  pthread_setspecific(key, &attached);
}

inline void ensure_attached() {
  if (!attached) [[unlikely]]
    attach_slow();
}

// The disposer handed to cds::gc::HP::retire for an object of type T derived from Base.
template <class T, class Base>
void hp_reclaim(void* p) noexcept {
  tsan_acquire(p);
  static_cast<Base*>(static_cast<T*>(p))->invoke_deleter();
}

// The error make_hazard_pointer reports when the creating thread's array is exhausted.
struct hazard_pointers_exhausted : std::bad_alloc {
  const char* what() const noexcept override {
    return "libcds: no free hazard pointer in this thread's fixed array "
           "(cds::gc::HP not_enough_hazard_ptr)";
  }
};

// RCU retire, with libcds's own deadlock check.
inline void rcu_schedule(void* p, void (*reclaim)(void*)) {
  ensure_attached();
  if (rcu_gc::is_locked())
    unsupported(
        "retire inside a read-side critical section: general_threaded::retire_ptr runs a "
        "grace period in the retiring thread whenever its buffer fills, which waits for this "
        "very region (libcds's containers refuse this with cds::urcu::rcu_deadlock)");
  tsan_release(p);
  tsan_acquire(&registry_sync);  // retire_ptr runs a grace period when the buffer fills
  rcu_gc::retire_ptr(p, reclaim);
  tsan_acquire(&registry_sync);
}

// Brackets a deleter run by the disposer thread (or by a retiring thread whose buffer
// overflowed).
inline void before_rcu_deleter(void* p) noexcept {
  tsan_acquire(p);
  tsan_acquire(&registry_sync);
}

template <class T, class D>
struct rcu_node {
  rcu_node(T* p, D&& d) : ptr(p), deleter(std::move(d)) {}
  T* ptr;
  D deleter;

  static void reclaim(void* p) noexcept;
};

template <class T, class D>
void rcu_node<T, D>::reclaim(void* p) noexcept {
  before_rcu_deleter(p);
  auto* self = static_cast<rcu_node*>(p);
  self->deleter(self->ptr);
  delete self;
}

}  // namespace libcds_detail

// --------------------------------------------------------------------------- <hazard_pointer>

template <class T, class D = std::default_delete<T>>
class hazard_pointer_obj_base {
 public:
  void retire(D d = D()) noexcept {
    deleter_ = std::move(d);
    T* self = static_cast<T*>(this);
    libcds_detail::ensure_attached();
    libcds_detail::tsan_release(self);
    cds::gc::HP::retire(self, &libcds_detail::hp_reclaim<T, hazard_pointer_obj_base>);
  }

 protected:
  hazard_pointer_obj_base() = default;
  hazard_pointer_obj_base(const hazard_pointer_obj_base&) = default;
  hazard_pointer_obj_base(hazard_pointer_obj_base&&) = default;
  hazard_pointer_obj_base& operator=(const hazard_pointer_obj_base&) = default;
  hazard_pointer_obj_base& operator=(hazard_pointer_obj_base&&) = default;
  ~hazard_pointer_obj_base() = default;

 private:
  template <class, class>
  friend void libcds_detail::hp_reclaim(void*) noexcept;

  void invoke_deleter() noexcept {
    D deleter = std::move(deleter_);  // the object, and this member with it, dies next
    deleter(static_cast<T*>(this));
  }

  D deleter_ = D();
};

class hazard_pointer {
 public:
  hazard_pointer() noexcept = default;
  hazard_pointer(hazard_pointer&& other) noexcept
      : guard_(std::move(other.guard_)), owner_(std::exchange(other.owner_, nullptr)) {}
  hazard_pointer& operator=(hazard_pointer&& other) noexcept {
    if (this != &other) {
      release();
      guard_ = std::move(other.guard_);  // Guard's move assignment swaps; ours was unlinked
      owner_ = std::exchange(other.owner_, nullptr);
    }
    return *this;
  }
  ~hazard_pointer() { release(); }

  bool empty() const noexcept { return !guard_.is_linked(); }

  template <class T>
  T* protect(const std::atomic<T*>& src) noexcept {
    end_protection();
    libcds_detail::ensure_attached();  // Guard::assign synchronizes through the caller's record
    return guard_.protect(src);
  }

  template <class T>
  bool try_protect(T*& ptr, const std::atomic<T*>& src) noexcept {
    T* old = ptr;
    reset_protection(old);
    ptr = src.load(std::memory_order_acquire);
    if (old != ptr) {
      reset_protection();
      return false;
    }
    return true;
  }

  template <class T>
  void reset_protection(const T* ptr) noexcept {
    end_protection();
    if (ptr == nullptr) {
      guard_.clear();
      return;
    }
    libcds_detail::ensure_attached();
    guard_.assign(const_cast<T*>(ptr));
  }

  void reset_protection(std::nullptr_t = nullptr) noexcept {
    end_protection();
    guard_.clear();
  }

  void swap(hazard_pointer& other) noexcept {
    std::swap(guard_.guard_ref(), other.guard_.guard_ref());
    std::swap(owner_, other.owner_);
  }

 private:
  friend hazard_pointer make_hazard_pointer();

  // TSan: whatever this hazard pointer protected may now be reclaimed; everything this
  // thread did with it happens before that.
  void end_protection() noexcept {
#if defined(SAFERECL_KIT_TSAN)
    if (void* p = guard_.get_native()) libcds_detail::tsan_release(p);
#endif
  }

  void release() noexcept {
    if (!guard_.is_linked()) return;
    if (!libcds_detail::attached || cds::gc::hp::smr::tls() != owner_)
      libcds_detail::unsupported(
          "destroying a hazard_pointer on a thread other than the one that created it "
          "(a cds::gc::HP guard can only be returned to its own thread's array)");
    end_protection();
    guard_.unlink();
    owner_ = nullptr;
  }

  cds::gc::HP::Guard guard_{nullptr};
  cds::gc::hp::thread_data* owner_ = nullptr;
};

inline hazard_pointer make_hazard_pointer() {
  libcds_detail::ensure_attached();
  hazard_pointer h;
  try {
    h.guard_.link();
  } catch (const cds::gc::HP::not_enough_hazard_ptr_exception&) {
    throw libcds_detail::hazard_pointers_exhausted();
  }
  h.owner_ = cds::gc::hp::smr::tls();
  return h;
}

inline void swap(hazard_pointer& a, hazard_pointer& b) noexcept { a.swap(b); }

// --------------------------------------------------------------------------- <rcu>

namespace libcds_detail {
struct rcu_region {
  static void enter() noexcept {
    ensure_attached();
    rcu_gc::access_lock();
  }
  static void leave() noexcept { rcu_gc::access_unlock(); }
};
}  // namespace libcds_detail

using rcu_domain = saferecl_kit::rcu_domain<libcds_detail::rcu_region>;

inline rcu_domain& rcu_default_domain() noexcept { return rcu_domain::default_domain(); }

inline void rcu_synchronize(rcu_domain& = rcu_default_domain()) noexcept {
  libcds_detail::exit_key();  // the singleton exists
  libcds_detail::tsan_acquire(&libcds_detail::registry_sync);
  libcds_detail::rcu_gc::synchronize();
  libcds_detail::tsan_acquire(&libcds_detail::registry_sync);
}

inline void rcu_barrier(rcu_domain& = rcu_default_domain()) noexcept {
  libcds_detail::exit_key();
  libcds_detail::tsan_acquire(&libcds_detail::registry_sync);
  libcds_detail::rcu_gc::force_dispose();
  libcds_detail::tsan_acquire(&libcds_detail::registry_sync);
}

template <class T, class D = std::default_delete<T>>
void rcu_retire(T* p, D d = D(), rcu_domain& = rcu_default_domain()) {
  saferecl_kit::check_rcu_retire_mandates<T, D>();
  using node = libcds_detail::rcu_node<T, D>;
  auto* n = new node(p, std::move(d));  // a null p still gets its node: libcds drops null
  libcds_detail::rcu_schedule(n, &node::reclaim);
}

template <class T, class D = std::default_delete<T>>
class rcu_obj_base {
 public:
  void retire(D d = D(), rcu_domain& = rcu_default_domain()) noexcept {
    deleter_ = std::move(d);
    libcds_detail::rcu_schedule(static_cast<T*>(this), &reclaim);
  }

 protected:
  rcu_obj_base() = default;
  rcu_obj_base(const rcu_obj_base&) = default;
  rcu_obj_base(rcu_obj_base&&) = default;
  rcu_obj_base& operator=(const rcu_obj_base&) = default;
  rcu_obj_base& operator=(rcu_obj_base&&) = default;
  ~rcu_obj_base() = default;

 private:
  static void reclaim(void* p) noexcept {
    libcds_detail::before_rcu_deleter(p);
    T* object = static_cast<T*>(p);
    rcu_obj_base* self = object;
    D deleter = std::move(self->deleter_);
    deleter(object);
  }

  D deleter_ = D();
};

}  // namespace sut
