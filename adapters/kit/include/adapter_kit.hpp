// adapter_kit.hpp -- what every wrapper adapter (liburcu, libcds, xenium) needs besides the
// mapping itself. Not an adapter: the kit is on the include path of the adapters built with
// saferecl_library_adapter() (cmake/SafereclAdapterKit.cmake), and knows no library.
//
//   saferecl_kit::tsan_acquire / tsan_release   happens-before edges a library creates where
//                                               ThreadSanitizer cannot see them (inside an
//                                               uninstrumented .so, or through fences); no-ops
//                                               in the other tiers. SAFERECL_KIT_TSAN says
//                                               whether this is the TSan tier.
//   saferecl_kit::unsupported(lib, what)        a difference from the standard that would
//                                               corrupt memory or hang: say which, and abort
//                                               (the test reports a crash with the message).
//   saferecl_kit::not_applicable(lib, what)     a capability the library does not have: the
//                                               test cannot be judged (exit status 77, the
//                                               battery's NOT APPLICABLE).
//   saferecl_kit::rcu_domain<Region>            the standard's rcu_domain shape (not copyable,
//                                               no public constructor, Cpp17Lockable, one
//                                               default domain) over Region::enter/leave.
//   saferecl_kit::check_rcu_retire_mandates     rcu_retire's Mandates, as static_asserts.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <type_traits>

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
#endif

namespace saferecl_kit {

#if defined(SAFERECL_KIT_TSAN)
inline void tsan_acquire(const volatile void* addr) noexcept { __tsan_acquire(const_cast<void*>(addr)); }
inline void tsan_release(const volatile void* addr) noexcept { __tsan_release(const_cast<void*>(addr)); }
#else
inline void tsan_acquire(const volatile void*) noexcept {}
inline void tsan_release(const volatile void*) noexcept {}
#endif

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

// Region: static void enter() noexcept; static void leave() noexcept (nestable). A region
// can always be entered, so try_lock succeeds.
template <class Region>
class rcu_domain {
 public:
  rcu_domain(const rcu_domain&) = delete;
  rcu_domain& operator=(const rcu_domain&) = delete;

  void lock() noexcept { Region::enter(); }
  bool try_lock() noexcept {
    Region::enter();
    return true;
  }
  void unlock() noexcept { Region::leave(); }

  // What the adapter's rcu_default_domain() returns.
  static rcu_domain& default_domain() noexcept {
    static constinit rcu_domain domain;
    return domain;
  }

 private:
  constexpr rcu_domain() noexcept = default;
};

template <class T, class D>
constexpr void check_rcu_retire_mandates() noexcept {
  static_assert(std::is_move_constructible_v<D>, "rcu_retire: D must be move constructible");
  static_assert(std::is_invocable_v<D&, T*>, "rcu_retire: d(p) must be well-formed");
}

}  // namespace saferecl_kit
