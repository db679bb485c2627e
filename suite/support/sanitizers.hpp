// Which sanitizer runtime the test is built with, for the few tests that must work around
// a runtime's limits (fork in a multi-threaded process) or ask it for figures (its
// allocator's live bytes). gcc defines __SANITIZE_*__, clang answers __has_feature. The
// macros serve #if (a header to include); the constants serve ordinary code.
#pragma once

#if defined(__has_feature)
#define SAFERECL_TEST_HAS_FEATURE(feature) __has_feature(feature)
#else
#define SAFERECL_TEST_HAS_FEATURE(feature) 0
#endif

// The tso tier compiles with TSan's instrumentation but links its own runtime instead of TSan's
// (support/tso/store_buffers.cpp): it defines SAFERECL_TEST_UNDER_TSAN=0 on the command line.
#ifndef SAFERECL_TEST_UNDER_TSAN
#if defined(__SANITIZE_THREAD__) || SAFERECL_TEST_HAS_FEATURE(thread_sanitizer)
#define SAFERECL_TEST_UNDER_TSAN 1
#else
#define SAFERECL_TEST_UNDER_TSAN 0
#endif
#endif

#if defined(__SANITIZE_ADDRESS__) || SAFERECL_TEST_HAS_FEATURE(address_sanitizer)
#define SAFERECL_TEST_UNDER_ASAN 1
#else
#define SAFERECL_TEST_UNDER_ASAN 0
#endif

namespace saferecl::test {

inline constexpr bool kUnderTsan = SAFERECL_TEST_UNDER_TSAN;
inline constexpr bool kUnderAsan = SAFERECL_TEST_UNDER_ASAN;

}  // namespace saferecl::test
