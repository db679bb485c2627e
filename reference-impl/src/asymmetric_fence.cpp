// Implementation of the light/heavy fence pair; see saferecl/detail/asymmetric_fence.hpp.
#include "saferecl/detail/asymmetric_fence.hpp"
#include "saferecl/detail/mutation.hpp"

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace saferecl::detail {

std::atomic<fence_mode> g_fence_mode{fence_mode::undecided};
constinit heavy_fence_numbers g_heavy_fences;

namespace {

long sys_membarrier(int cmd) noexcept { return ::syscall(__NR_membarrier, cmd, 0U, 0); }

bool register_private_expedited() noexcept {
  long supported = sys_membarrier(MEMBARRIER_CMD_QUERY);
  if (supported < 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
  return sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

void cpu_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Raise `completed` to `number` unless a later fence already returned.
void publish_completed(std::uint64_t number) noexcept {
  std::uint64_t seen = g_heavy_fences.completed.load(std::memory_order_relaxed);
  while (seen < number && !g_heavy_fences.completed.compare_exchange_weak(
                              seen, number, std::memory_order_release, std::memory_order_relaxed)) {
  }
}

}  // namespace

fence_mode decide_fence_mode() noexcept {
  // Lock-free on purpose: a function-local static's init guard, held by another thread when
  // the process forks, would hang the child at its first fence. Several threads may race
  // here; registration is idempotent, and the first CAS fixes the one mode ever observed.
  fence_mode m = g_fence_mode.load(std::memory_order_acquire);
  if (m != fence_mode::undecided) return m;
  // MH-90 runs on the symmetric design (a seq_cst fence on each side): see its catalog entry.
  const fence_mode mine = !SAFERECL_MUTANT("MH-90") && register_private_expedited()
                              ? fence_mode::asymmetric
                              : fence_mode::symmetric;
  if (g_fence_mode.compare_exchange_strong(m, mine, std::memory_order_acq_rel,
                                           std::memory_order_acquire))
    return mine;
  return m;
}

void heavy_fence() noexcept {
  if (current_fence_mode() != fence_mode::asymmetric) return full_fence();
  // After a successful registration PRIVATE_EXPEDITED cannot fail (EINVAL/EPERM are the
  // only documented errors, and both are ruled out by the registration).
  if constexpr (kTsanBuild) {  // unnumbered: nothing reads the numbers (heavy_fence_done)
    (void)sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    return;
  }
  const std::uint64_t number = g_heavy_fences.begun.fetch_add(1, std::memory_order_seq_cst) + 1;
  (void)sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
  publish_completed(number);
}

void await_heavy_fence(std::uint64_t stamp) noexcept {
  constexpr unsigned kSpins = 1024;  // pauses before yielding: about a lone fence's time
  constexpr unsigned kYields = 64;   // then yields, before issuing a fence after all
  if (heavy_fence_begun(stamp)) {
    for (unsigned round = 0; round < kSpins + kYields; ++round) {
      if (g_heavy_fences.completed.load(std::memory_order_acquire) >= stamp) return;
      if (round < kSpins)
        cpu_pause();
      else
        ::sched_yield();
    }
  }
  heavy_fence();
}

}  // namespace saferecl::detail
