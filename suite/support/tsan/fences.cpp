// Records that the process executed an atomic_thread_fence, which no ThreadSanitizer runtime
// models: TSan derives happens-before from acquire and release *operations* only, so a
// design that synchronizes through fences ([atomics.fences]: a release fence before a
// relaxed store, an acquire fence after the relaxed load that reads it) is reported as
// racing even when it is correct. A race report from such a process is not evidence, and
// reports/tsan_evidence.py turns it into INCONCLUSIVE instead of a failure.
//
// Every TSan-instrumented fence is a call to __tsan_atomic_thread_fence(order). The battery's
// TSan executables are linked with --wrap=__tsan_atomic_thread_fence (suite/CMakeLists.txt),
// so the call lands here first. The first non-relaxed fence of the process prints one line,
// "[saferecl] TSan: atomic_thread_fence executed at <function> <file:line>", then the real
// entry point runs (it orders the hardware; TSan records nothing).
//
// The wrapper must not synchronize the threads it runs on, or it would hide races: the flag
// is touched with relaxed operations only (TSan gives them no happens-before edge), and the
// line is written with write(2).
#include <sanitizer/common_interface_defs.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

extern "C" void __real___tsan_atomic_thread_fence(int order);

namespace {

constexpr int kRelaxed = 0;  // the runtime's encoding of memory_order_relaxed
std::atomic<bool> g_fence_reported{false};

// "<function> <file:line>" of the caller, and of up to two functions it is inlined in, each
// after a " < " (innermost first: the fence is usually inside std::atomic_thread_fence).
void report_first_fence(void* caller) {
  char frames[1024] = {};
  __sanitizer_symbolize_pc(caller, "%f %L", frames, sizeof frames - 1);
  char line[1200] = "[saferecl] TSan: atomic_thread_fence executed at ";
  int shown = 0;
  for (const char* frame = frames; *frame != '\0' && shown++ < 3; frame += std::strlen(frame) + 1) {
    if (frame != frames) std::strncat(line, " < ", sizeof line - std::strlen(line) - 2);
    std::strncat(line, frame, sizeof line - std::strlen(line) - 2);
  }
  std::strcat(line, "\n");
  (void)!::write(STDERR_FILENO, line, std::strlen(line));
}

}  // namespace

extern "C" void __wrap___tsan_atomic_thread_fence(int order) {
  if (order != kRelaxed && !g_fence_reported.load(std::memory_order_relaxed) &&
      !g_fence_reported.exchange(true, std::memory_order_relaxed))
    report_first_fence(__builtin_return_address(0));
  __real___tsan_atomic_thread_fence(order);
}
