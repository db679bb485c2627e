// saferecl/detail/config.hpp -- build-mode detection shared by the reference implementation.
//
// The reference implementation orders its fast paths with asymmetric fences: a compiler
// barrier on the frequent side (readers, protect) and a process-wide membarrier on the rare
// side (grace periods, reclamation scans). ThreadSanitizer does not model fences at all, so
// under TSan every such pair is replaced by sequentially consistent atomic operations, which
// TSan does understand. `kTsanBuild` is the one switch both algorithms consult. A build that
// has TSan's instrumentation without TSan (the tso tier, which must see the real fences)
// defines SAFERECL_TSAN=0 on the command line.
#pragma once

#ifndef SAFERECL_TSAN
#if defined(__SANITIZE_THREAD__)
#define SAFERECL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SAFERECL_TSAN 1
#endif
#endif
#endif
#ifndef SAFERECL_TSAN
#define SAFERECL_TSAN 0
#endif

// AddressSanitizer: caches of freed blocks poison what they hold (detail/rcu_node_cache.hpp).
#if defined(__SANITIZE_ADDRESS__)
#define SAFERECL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SAFERECL_ASAN 1
#endif
#endif
#ifndef SAFERECL_ASAN
#define SAFERECL_ASAN 0
#endif

namespace saferecl::detail {

inline constexpr bool kTsanBuild = SAFERECL_TSAN != 0;

// Size used to keep independently written shared data on separate cache lines.
inline constexpr unsigned kCacheLine = 64;

}  // namespace saferecl::detail
