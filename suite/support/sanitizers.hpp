// Which sanitizer runtime the test is built with, for the few tests that must work around
// a runtime's limits (e.g. fork in a multi-threaded process). gcc defines __SANITIZE_*__,
// clang answers __has_feature.
#pragma once

namespace saferecl::test {

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kUnderTsan = true;
#elif defined(__has_feature)
inline constexpr bool kUnderTsan = __has_feature(thread_sanitizer);
#else
inline constexpr bool kUnderTsan = false;
#endif

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAsan = true;
#elif defined(__has_feature)
inline constexpr bool kUnderAsan = __has_feature(address_sanitizer);
#else
inline constexpr bool kUnderAsan = false;
#endif

}  // namespace saferecl::test
