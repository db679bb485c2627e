#include "support/fault_injection.hpp"
#include "support/not_applicable.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace saferecl::test::fault {
namespace {

// Per-thread arming state. Plain thread_local PODs: constant-initialized, usable inside
// operator new without recursion.
thread_local bool t_armed = false;
thread_local std::size_t t_allowed = 0;
thread_local std::size_t t_failures = 0;

bool should_fail() noexcept {
  if (!t_armed) return false;
  if (t_allowed > 0) {
    --t_allowed;
    return false;
  }
  ++t_failures;
  return true;
}

void fail_if_armed() {
  if (should_fail()) throw std::bad_alloc();
}

#if !SAFERECL_FAULT_INJECTION_WRAP
void* allocate(std::size_t size, std::size_t alignment) {
  fail_if_armed();
  if (size == 0) size = 1;
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(size)
                : std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
#endif

}  // namespace

void arm(std::size_t allowed_allocations) noexcept {
  t_allowed = allowed_allocations;
  t_failures = 0;
  t_armed = true;
}

void disarm() noexcept { t_armed = false; }

std::size_t injected_failures() noexcept { return t_failures; }

std::size_t next_allowed(const sweep_plan& plan, std::size_t k) noexcept {
  if (k < plan.dense_until) return k + 1;
  const auto grown = static_cast<std::size_t>(static_cast<double>(k) * plan.growth);
  return grown > k ? grown : k + 1;
}

sweep_result fork_sweep(const std::function<int(std::size_t)>& scenario, const sweep_plan& plan) {
  sweep_result result;
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::duration<double>(plan.budget_seconds);
  for (std::size_t k = 0;; k = next_allowed(plan, k)) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) std::abort();
    const pid_t pid = fork_child();  // the parent judges its progress (wait_for_child)
    if (pid == 0) {
      ::close(pipe_fds[0]);
      ::dup2(pipe_fds[1], STDERR_FILENO);
      std::_Exit(scenario(k));
    }
    ::close(pipe_fds[1]);
    trial t;
    t.allowed = k;
    child_end end = wait_for_child(pid, pipe_fds[0], plan.child_timeout);
    ::close(pipe_fds[0]);
    t.output = std::move(end.output);
    const int status = end.status;
    t.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    // The child met something the adapter cannot do: so does the test, for the same reason.
    if (t.exit_code == exit_status::kNotApplicable) {
      std::fputs(t.output.c_str(), stderr);
      not_applicable("a child of the fault-injection sweep ended NOT APPLICABLE (above)");
    }
    result.trials.push_back(std::move(t));
    if (result.trials.back().exit_code != kThrew) break;  // completed, or a violation: stop
    if (k >= plan.max_allowed || std::chrono::steady_clock::now() - start >= budget) {
      result.out_of_budget = true;
      break;
    }
  }
  return result;
}

}  // namespace saferecl::test::fault

#if SAFERECL_FAULT_INJECTION_WRAP
// Sanitizer runtimes define the allocation functions themselves and are linked whole, so a
// replacement would be a duplicate definition. Under a sanitizer the build wraps them
// instead (ld --wrap=<symbol>): calls made by the program's own objects and static
// libraries reach the injection first and the runtime's operator new after it, which
// keeps the runtime's new/delete pairing intact. Allocations made inside shared libraries
// are not seen.
extern "C" {
void* __real__Znwm(std::size_t);
void* __real__Znam(std::size_t);
void* __real__ZnwmSt11align_val_t(std::size_t, std::align_val_t);
void* __real__ZnamSt11align_val_t(std::size_t, std::align_val_t);

void* __wrap__Znwm(std::size_t size) {
  saferecl::test::fault::fail_if_armed();
  return __real__Znwm(size);
}
void* __wrap__Znam(std::size_t size) {
  saferecl::test::fault::fail_if_armed();
  return __real__Znam(size);
}
void* __wrap__ZnwmSt11align_val_t(std::size_t size, std::align_val_t al) {
  saferecl::test::fault::fail_if_armed();
  return __real__ZnwmSt11align_val_t(size, al);
}
void* __wrap__ZnamSt11align_val_t(std::size_t size, std::align_val_t al) {
  saferecl::test::fault::fail_if_armed();
  return __real__ZnamSt11align_val_t(size, al);
}
}
#else
// The replaceable global allocation functions ([new.delete]).
void* operator new(std::size_t size) { return saferecl::test::fault::allocate(size, 0); }
void* operator new[](std::size_t size) { return saferecl::test::fault::allocate(size, 0); }
void* operator new(std::size_t size, std::align_val_t al) {
  return saferecl::test::fault::allocate(size, static_cast<std::size_t>(al));
}
void* operator new[](std::size_t size, std::align_val_t al) {
  return saferecl::test::fault::allocate(size, static_cast<std::size_t>(al));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#endif
