// saferecl/detail/asymmetric_fence.hpp -- a light fence for hot paths, a heavy one for rare paths.
//
// Both hazard pointers and RCU need a store->load (StoreLoad) ordering between a frequent
// actor (a reader publishing "I am here", then loading a shared pointer) and a rare actor
// (a reclaimer publishing "this is unlinked", then loading the readers' announcements).
// A seq_cst fence on both sides works but costs the frequent side ~20 cycles per call.
//
// The asymmetric pair moves the whole cost to the rare side:
//   light_fence()  -- only a compiler barrier, provided the heavy side can interrupt
//                     every running thread of the process;
//   heavy_fence()  -- membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): the kernel runs a full
//                     barrier on every CPU currently executing a thread of this process, so
//                     any light_fence() executed before it is, in effect, a full fence.
//
// The pair is correct only if both sides agree on the mode. The mode is decided once per
// process (registration with the kernel may fail on old kernels or in sandboxes) and never
// changes afterwards: a thread that sees "asymmetric" saw it after the registration that
// makes heavy_fence() effective. Without membarrier both sides fall back to seq_cst fences.
//
// Cost measured on the project's machine kind: a lone membarrier ~0.3 us, ~11 us when other
// threads of the process are running. Callers must amortize it (one per scan or grace
// period, shared between concurrent callers where possible).
//
// ThreadSanitizer does not model fences, so TSan builds must not rely on this pair for
// happens-before; the algorithms use seq_cst operations there (see config.hpp). They do not
// even execute a fence there: full_fence() is a seq_cst read-modify-write of a thread-private
// word instead, the same locked instruction on x86, which orders the hardware and gives TSan
// no edge (only this thread touches the word). A conformance tool cannot tell a fence that
// only orders the hardware from one that carries happens-before, so saferecl's battery takes
// a race in a process that executed a fence as inconclusive (suite/support/tsan/fences.cpp);
// the reference keeps its races judgeable by never executing one under TSan.
#pragma once

#include <atomic>

#include "saferecl/detail/config.hpp"

namespace saferecl::detail {

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"  // the fence is compiled, never executed, under TSan
#endif
inline void full_fence() noexcept {
  if constexpr (kTsanBuild) {
    thread_local std::atomic<unsigned> private_word{0};
    private_word.fetch_add(1, std::memory_order_seq_cst);
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif

// Process-wide mode of the fence pair. Decided by the first call; cached thereafter.
enum class fence_mode : int { undecided = 0, asymmetric = 1, symmetric = 2 };

extern std::atomic<fence_mode> g_fence_mode;
fence_mode decide_fence_mode() noexcept;  // registers with membarrier; idempotent

inline fence_mode current_fence_mode() noexcept {
  fence_mode m = g_fence_mode.load(std::memory_order_acquire);
  return m != fence_mode::undecided ? m : decide_fence_mode();
}

inline void light_fence() noexcept {
  if (current_fence_mode() == fence_mode::asymmetric)
    std::atomic_signal_fence(std::memory_order_seq_cst);
  else
    full_fence();
}

// A full barrier on every running thread of the process (or a local seq_cst fence in
// symmetric mode). Out of line: it is a system call.
void heavy_fence() noexcept;

}  // namespace saferecl::detail
