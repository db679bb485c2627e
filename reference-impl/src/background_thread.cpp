// background_thread.cpp -- see background_thread.hpp.
#include "background_thread.hpp"

#include <unistd.h>

#include <cstdlib>

namespace saferecl::detail {

bool background_thread::start() noexcept {
  if (started_.load(std::memory_order_acquire)) return true;
  bool expected = false;
  if (!started_.compare_exchange_strong(expected, true)) return true;
  register_hooks();
  if (::pthread_create(&thread_, nullptr, main_, nullptr) != 0) {
    started_.store(false);
    return false;
  }
  pid_.store(::getpid());
  return true;
}

bool background_thread::runs_here() const noexcept {
  return pid_.load() == ::getpid() && !stop_requested();
}

void background_thread::stop() noexcept {
  if (pid_.load() != ::getpid()) return;  // not started in this process
  stop_.store(true, std::memory_order_release);
  ::pthread_join(thread_, nullptr);
  pid_.store(0);
}

void background_thread::forget() noexcept {
  started_.store(false);
  stop_.store(false);
  pid_.store(0);
}

// A forked child inherits both registrations, so they are made once.
void background_thread::register_hooks() noexcept {
  if (hooks_registered_.exchange(true)) return;
  (void)std::atexit(stop_at_exit_);
  (void)::pthread_atfork(nullptr, nullptr, forget_in_child_);
}

}  // namespace saferecl::detail
