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
  // Several threads may race here; registration is idempotent, and all of them store the
  // same answer, so the first decision is the only one ever observed.
  static const fence_mode decided =
      register_private_expedited() ? fence_mode::asymmetric : fence_mode::symmetric;
  g_fence_mode.store(decided, std::memory_order_release);
  return decided;
}

void heavy_fence() noexcept {
  // After a successful registration PRIVATE_EXPEDITED cannot fail (EINVAL/EPERM are the
  // only documented errors, and both are ruled out by the registration).
  if (current_fence_mode() == fence_mode::asymmetric)
    (void)sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace saferecl::detail
