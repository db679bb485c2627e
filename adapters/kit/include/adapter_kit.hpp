// adapter_kit.hpp -- the standard's shapes, written once, for every adapter over a library with
// an API of its own (ck, libcds, liburcu, xenium, the guide's example). Not an adapter: the kit
// is on the include path of the adapters built with saferecl_library_adapter()
// (cmake/SafereclAdapterKit.cmake), and knows no library.
//
// An adapter's sut.hpp defines the SUT_* macros, writes one policy per capability it has, names
// them in namespace sut::library, and includes <adapter_kit/standard_names.hpp>, which declares
// the standard's names in namespace sut from them. The shapes are the kit's: the holder's moves,
// swap and empty state, try_protect's and protect's definitions, the object bases' protected
// special members and stored deleter (moved out, called with the complete object), rcu_retire's
// Mandates and node {p, d1}, the domain's Cpp17Lockable shape. What a policy supplies is the
// library's part:
//
//   sut::library::hazard_pointers                       (when SUT_HAS_HAZARD_POINTER)
//     slot                          a library's hazard pointer as a value: default-constructed
//                                   empty; nothrow movable (the kit moves only into an empty
//                                   slot, and overwrites or forgets the source)
//     static slot make()            a slot of its own (may throw bad_alloc)
//     static bool empty(const slot&) noexcept
//     static void publish(slot&, U* p) noexcept   protect p (non-null), ending what it protected
//     static void clear(slot&) noexcept            end the protection
//     static void release(slot&) noexcept          give a non-empty slot back; it is empty after
//     [static U* protect(slot&, const std::atomic<U*>&) noexcept]   the library's own
//                                   publish-and-validate loop; otherwise the standard's loop
//                                   over try_protect
//     template <class U, class Reclaim> using node  what the library needs inside every object
//                                   it reclaims: a public base of U (an empty struct if nothing)
//     template <class Reclaim, class U> static void defer(U* object)
//                                   retire: once no hazard pointer protects object, call
//                                   Reclaim::run(object) (once, on any thread)
//
//   sut::library::rcu                                    (when SUT_HAS_RCU)
//     static void enter() noexcept, leave() noexcept     a read-side region (nestable); one can
//                                   always be entered, so try_lock succeeds
//     static void synchronize() noexcept, barrier() noexcept
//     node, defer                   as above: after a grace period, Reclaim::run(object)
//     [static void prepare_retire()]   what a retire may allocate before anything is scheduled
//                                   (a thread's record): rcu_retire calls it before it makes
//                                   its node, so a bad_alloc leaves nothing scheduled
//
//   either policy, optionally:
//     template <class U, class D> using deleter_node; static void defer(U*, D&&) noexcept
//                                   a library that keeps the deleter itself: the object bases
//                                   derive from deleter_node<T, D> and hand d over (the kit
//                                   then keeps none)
//
// defer may throw only where the library's retire allocates (libcds attaches the thread):
// rcu_retire lets the bad_alloc through, the noexcept retire of an object base terminates.
// Reclaim::run(U*) is the kit's: it runs the stored deleter (object bases) or d1(p) and frees
// the node (rcu_retire). Besides the shapes the kit has:
//
//   saferecl_kit::tsan_acquire / tsan_release   happens-before edges a library creates where
//                                               ThreadSanitizer cannot see them (inside an
//                                               uninstrumented .so, or through fences); no-ops
//                                               in the other tiers. SAFERECL_KIT_TSAN says
//                                               whether this is the TSan tier.
//   saferecl_kit::tsan_unrecorded_writes        a scope whose writes TSan does not record (a
//                                               library's set-up that it publishes inside
//                                               its uninstrumented .so)
//   saferecl_kit::thread_exit<f>::arm()         f runs at the exit of the calling thread (a
//                                               library's per-thread state given back)
//   saferecl_kit::unsupported(lib, what)        a difference from the standard that would
//                                               corrupt memory or hang: say which, and abort
//                                               (the test reports a crash with the message).
//   saferecl_kit::not_applicable(lib, what)     a capability the library does not have: the
//                                               test cannot be judged (exit status 77, the
//                                               battery's NOT APPLICABLE).
#pragma once

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>

#if defined(__SANITIZE_THREAD__)
#define SAFERECL_KIT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SAFERECL_KIT_TSAN 1
#endif
#endif

#if defined(SAFERECL_KIT_TSAN)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
extern "C" void AnnotateIgnoreWritesBegin(const char* file, int line);
extern "C" void AnnotateIgnoreWritesEnd(const char* file, int line);
#endif

namespace saferecl_kit {

#if defined(SAFERECL_KIT_TSAN)
inline void tsan_acquire(const volatile void* addr) noexcept { __tsan_acquire(const_cast<void*>(addr)); }
inline void tsan_release(const volatile void* addr) noexcept { __tsan_release(const_cast<void*>(addr)); }
// For its lifetime, TSan records no write of the calling thread: around a library's own
// set-up inside an uninstrumented .so, which allocates a record (the allocator's interceptor
// records that as a write TSan can see) and publishes it where TSan cannot.
struct tsan_unrecorded_writes {
  tsan_unrecorded_writes() noexcept { AnnotateIgnoreWritesBegin(__FILE__, __LINE__); }
  ~tsan_unrecorded_writes() { AnnotateIgnoreWritesEnd(__FILE__, __LINE__); }
  tsan_unrecorded_writes(const tsan_unrecorded_writes&) = delete;
  tsan_unrecorded_writes& operator=(const tsan_unrecorded_writes&) = delete;
};
#else
inline void tsan_acquire(const volatile void*) noexcept {}
inline void tsan_release(const volatile void*) noexcept {}
struct tsan_unrecorded_writes {};
#endif

// f(arg) at the exit of every thread that armed it: a pthread key destructor, which glibc runs
// after every C++ thread_local destructor, so what those destructors do (enter a region, retire)
// still finds the thread's library state. key() creates the key on its first call: a library
// whose own key must be destroyed later calls it before the library creates that key (keys are
// destroyed in creation order).
template <void (*f)(void*) noexcept>
struct thread_exit {
  static pthread_key_t key() noexcept {
    static const pthread_key_t made = [] {
      pthread_key_t k;
      pthread_key_create(&k, f);
      return k;
    }();
    return made;
  }

  static void arm() noexcept {
    static char armed;
    pthread_setspecific(key(), &armed);  // any non-null value arms the destructor
  }
};

[[noreturn, gnu::cold]] inline void unsupported(const char* library, const char* what) noexcept {
  std::fprintf(stderr, "[saferecl] %s adapter: unsupported by %s: %s (see adapters/%s/README.md)\n",
               library, library, what, library);
  std::fflush(stderr);
  std::abort();
}

// The exit status and the line are the battery's NOT APPLICABLE protocol
// (suite/support/exit_status.hpp), spelt out here because an adapter includes nothing of the
// suite; driver/tests/test_exit_protocol.py checks that they agree.
[[noreturn, gnu::cold]] inline void not_applicable(const char* library, const char* what) noexcept {
  std::fprintf(stderr, "[saferecl] NOT APPLICABLE: %s has no %s\n", library, what);
  std::fflush(stderr);
  std::_Exit(77);
}

// How an object base (hazard_pointer_obj_base, rcu_obj_base) hands its object to the library:
// its public base. By default the kit keeps the deleter in the object, move-assigned by retire
// as [saferecl.hp.base]/7 and [saferecl.rcu.base]/3 say, and the library's Reclaim moves it out
// (the object, and the member with it, dies next) and calls it with the complete object. A
// library that keeps deleters itself declares deleter_node<U, D> and defer(U*, D&&).
template <class Library, class T, class D>
class kit_keeps_deleter;

template <class Base>
struct run_kept_deleter {
  template <class T>
  static void run(T* object) noexcept {
    Base* base = object;
    auto deleter = std::move(base->deleter_);
    deleter(object);
  }
};

template <class Library, class T, class D>
class kit_keeps_deleter
    : public Library::template node<T, run_kept_deleter<kit_keeps_deleter<Library, T, D>>> {
  using reclaim = run_kept_deleter<kit_keeps_deleter>;

 protected:
  void saferecl_kit_defer(T* object, D&& d) noexcept {
    deleter_ = std::move(d);
    Library::template defer<reclaim>(object);
  }

 private:
  friend reclaim;
  D deleter_ = D();
};

template <class Library, class T, class D>
class library_keeps_deleter : public Library::template deleter_node<T, D> {
 protected:
  static void saferecl_kit_defer(T* object, D&& d) noexcept { Library::defer(object, std::move(d)); }
};

template <class Library, class T, class D>
using deferral = std::conditional_t<requires { typename Library::template deleter_node<T, D>; },
                                    library_keeps_deleter<Library, T, D>, kit_keeps_deleter<Library, T, D>>;

}  // namespace saferecl_kit

#include <adapter_kit/hazard_pointer.hpp>
#include <adapter_kit/rcu.hpp>
