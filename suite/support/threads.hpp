// Thread helpers: one-shot events, and groups of threads started together and joined.
//
// Worker threads must not use doctest's REQUIRE (the exception escapes the thread and
// terminates the process); count violations in atomics and assert on the main thread, or
// use CHECK, which is thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "support/atomic_sync.hpp"

namespace saferecl::test {

// A flag that is set once and can be waited for.
class event {
 public:
  void set() {
    {
      std::lock_guard lock(mutex_);
      set_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
  }
  bool is_set() const noexcept { return set_.load(std::memory_order_acquire); }
  void wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return is_set(); });
  }
  // True if the event was set within `limit`.
  bool wait_for(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, [this] { return is_set(); });
  }

 private:
  std::atomic<bool> set_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
};

// Threads that are joined when the group is joined or destroyed.
class thread_group {
 public:
  thread_group() = default;
  thread_group(const thread_group&) = delete;
  thread_group& operator=(const thread_group&) = delete;
  ~thread_group() { join(); }

  template <class F>
  void spawn(F&& body) {
    threads_.emplace_back(std::forward<F>(body));
  }
  void join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
    threads_.clear();
  }

 private:
  std::vector<std::thread> threads_;
};

// Runs body(i) for i in [0, n) on n threads released together, and joins them.
template <class F>
void run_in_parallel(std::size_t n, F body) {
  atomic_latch start(n);
  thread_group group;
  for (std::size_t i = 0; i < n; ++i)
    group.spawn([&, i] {
      start.arrive_and_wait();
      body(i);
    });
  group.join();
}

}  // namespace saferecl::test
