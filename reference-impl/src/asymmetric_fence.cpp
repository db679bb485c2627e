// Implementation of the light/heavy fence pair; see saferecl/detail/asymmetric_fence.hpp.
#include "saferecl/detail/asymmetric_fence.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace saferecl::detail {

std::atomic<fence_mode> g_fence_mode{fence_mode::undecided};

namespace {

long sys_membarrier(int cmd) noexcept { return ::syscall(__NR_membarrier, cmd, 0U, 0); }

bool register_private_expedited() noexcept {
  long supported = sys_membarrier(MEMBARRIER_CMD_QUERY);
  if (supported < 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
  return sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

}  // namespace

fence_mode decide_fence_mode() noexcept {
  // Lock-free on purpose: a function-local static's init guard, held by another thread when
  // the process forks, would hang the child at its first fence. Several threads may race
  // here; registration is idempotent, and the first CAS fixes the one mode ever observed.
  fence_mode m = g_fence_mode.load(std::memory_order_acquire);
  if (m != fence_mode::undecided) return m;
  const fence_mode mine =
      register_private_expedited() ? fence_mode::asymmetric : fence_mode::symmetric;
  if (g_fence_mode.compare_exchange_strong(m, mine, std::memory_order_acq_rel,
                                           std::memory_order_acquire))
    return mine;
  return m;
}

void heavy_fence() noexcept {
  // After a successful registration PRIVATE_EXPEDITED cannot fail (EINVAL/EPERM are the
  // only documented errors, and both are ruled out by the registration).
  if (current_fence_mode() == fence_mode::asymmetric)
    (void)sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
  else
    full_fence();
}

}  // namespace saferecl::detail
