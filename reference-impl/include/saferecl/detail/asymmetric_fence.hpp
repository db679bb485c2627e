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
#include <cstdint>

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

// ---------------------------------------------------------------------------------------
// Sharing heavy fences: fence numbers
// ---------------------------------------------------------------------------------------
//
// A heavy fence is process-wide: whichever thread issues it, every thread of the process
// that runs while it is in progress executes a full barrier there, and every other thread
// passed one when it was switched out. So a caller that needs "a heavy fence after point X"
// can use one that another thread issued, provided it began after X; concurrent callers then
// share one system call instead of issuing one each (each call interrupts every CPU that runs
// a thread of the process, and the calls serialize in the kernel).
//
// Every asymmetric heavy fence gets a number: g_heavy_fences.begun counts the fences begun
// (the issuer's seq_cst fetch_add, before the system call, gives the number),
// g_heavy_fences.completed is the highest number of a fence that has returned (raised with a
// release CAS after the call; fences may return out of order, so it is a maximum).
//
//   s = heavy_fence_stamp()   point X: a full fence, then s = begun + 1, the number of the
//                             first fence to begin after X
//   heavy_fence_done(s)       acquire-load completed >= s: a fence numbered s or higher
//                             has returned
//   heavy_fence_begun(s)      begun >= s: a fence numbered s or higher is in progress or done
//   heavy_fence_since(s)      on return a heavy fence that began after X has completed:
//                             done(s), or else wait for one numbered s or higher that is
//                             in progress, or else issue one
//
// Why a fence numbered n >= s began after X. The stamp's load of `begun` read s - 1, so it
// precedes in the single total order S of seq_cst operations the fetch_add that moved
// `begun` from s - 1 to s, and every later one, the fetch_add that gave n among them; the
// issuer enters the system call after that fetch_add. The stamp's full fence comes before
// its load, so every store the caller made before X was globally visible before the load
// read s - 1: before fence n began. That is the property a heavy fence of the caller's own
// would have had (the kernel fences the calling thread on entry, too). Without the full
// fence, x86 lets the load run ahead of the caller's buffered stores, and a fence that began
// "after" the load could run while a store from before X still sat in the caller's store
// buffer, invisible to a thread that the fence had already interrupted.
//
// And why done(s) means that fence has completed for the caller: the issuer raises
// `completed` with a release after the system call returned, and done(s) reads it with an
// acquire; everything the fence made visible is visible to the caller's later loads.
//
// Symmetric mode shares nothing: heavy_fence_done and heavy_fence_begun are false, and
// heavy_fence_since issues its local seq_cst fence. Neither does a TSan build: what orders
// it is seq_cst operations and the stamp's own full fence (config.hpp), and reading fence
// numbers that RCU's heavy fences write would give TSan happens-before edges that no
// algorithm relies on, edges that could hide a race; there the stamp is only its full fence.
// The numbers are process state like the mode; a child forked while a fence was in progress
// keeps begun > completed for that fence forever, which only means that the child's callers
// issue fences of their own (a caller whose stamp that fence would cover waits for it once,
// boundedly, then issues one).
//
// Waiting for a fence in progress rather than issuing one: the expedited membarriers of a
// process serialize in the kernel (since Linux 6.8), so a fence of our own would begin only
// after that one ended, and would interrupt every other CPU once more. The wait spins briefly and
// then yields (with more threads than cores, the issuer may be waiting for this CPU), and is
// bounded: a fence that never completes costs one wait and a fence of the caller's own.
//
// Cost: an uncontended fetch_add and CAS on the issuer's side of a system call that costs
// microseconds; a full fence and a load per stamp, an acquire load per done().
struct alignas(kCacheLine) heavy_fence_numbers {
  std::atomic<std::uint64_t> begun{0};
  std::atomic<std::uint64_t> completed{0};
};
extern constinit heavy_fence_numbers g_heavy_fences;

inline std::uint64_t heavy_fence_stamp() noexcept {
  full_fence();
  if constexpr (kTsanBuild) return 0;
  return g_heavy_fences.begun.load(std::memory_order_seq_cst) + 1;
}

inline bool heavy_fence_done(std::uint64_t stamp) noexcept {
  if constexpr (kTsanBuild) return false;
  return current_fence_mode() == fence_mode::asymmetric &&
         g_heavy_fences.completed.load(std::memory_order_acquire) >= stamp;
}

inline bool heavy_fence_begun(std::uint64_t stamp) noexcept {
  if constexpr (kTsanBuild) return false;
  return current_fence_mode() == fence_mode::asymmetric &&
         g_heavy_fences.begun.load(std::memory_order_relaxed) >= stamp;
}

void await_heavy_fence(std::uint64_t stamp) noexcept;  // the slow half of heavy_fence_since

inline void heavy_fence_since(std::uint64_t stamp) noexcept {
  if (!heavy_fence_done(stamp)) await_heavy_fence(stamp);
}

}  // namespace saferecl::detail
