// background_thread.hpp -- the one process-wide thread of a conforming variant: NB-H4's
// reclaimer (hazard_reclamation.cpp) and the callback worker of NB-R4 and NB-R10
// (rcu_callbacks.cpp) start and stop the same way, here.
//
//   start()           on first demand: registers, once per process image, the stop at exit
//                     and the forgetting in a forked child, then creates the thread. True once
//                     this process has started it (now or before); false only when
//                     pthread_create failed (the caller then does the work itself).
//   runs_here()       started by this process (not inherited through fork) and not stopping
//   stop_requested()  for the thread's loop: return when true
//   stop()            at exit (atexit: before the program's own statics are destroyed): asks
//                     the thread to return and joins it; nothing in a process that did not
//                     start it
//   forget()          in a forked child, which has no such thread: the next start() makes one
//
// atexit and pthread_atfork take plain functions, so the owner passes two that call stop()
// and forget() on its object.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>

namespace saferecl::detail {

class background_thread {
 public:
  using body = void* (*)(void*);
  using hook = void (*)();

  constexpr background_thread(body main, hook stop_at_exit, hook forget_in_child) noexcept
      : main_(main), stop_at_exit_(stop_at_exit), forget_in_child_(forget_in_child) {}
  background_thread(const background_thread&) = delete;
  background_thread& operator=(const background_thread&) = delete;

  bool start() noexcept;
  bool runs_here() const noexcept;
  bool stop_requested() const noexcept { return stop_.load(std::memory_order_acquire); }
  void stop() noexcept;
  void forget() noexcept;

 private:
  void register_hooks() noexcept;

  body main_;
  hook stop_at_exit_;
  hook forget_in_child_;
  std::atomic<bool> started_{false};
  std::atomic<bool> stop_{false};
  std::atomic<pid_t> pid_{0};
  std::atomic<bool> hooks_registered_{false};
  pthread_t thread_{};
};

}  // namespace saferecl::detail
