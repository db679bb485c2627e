// Latches and barriers for the tests' own synchronization, with every happens-before edge
// on a std::atomic.
//
// Why the suite does not use the standard ones (latch, barrier, call_once, semaphores):
// in some standard libraries part of their synchronization lives in the compiled runtime
// (libc++ keeps the arrival counting of its barrier and the completing half of call_once in
// libc++.a), and the runtime a distribution ships is not built with -fsanitize=thread.
// ThreadSanitizer then does not see the happens-before edge such a primitive provides and
// reports data races between the threads it ordered: false failures, charged to the
// implementation under test. Here every edge a test relies on is an inline std::atomic
// release and acquire, instrumented in the test's own translation unit, so TSan sees it
// whatever standard library the run links.
//
// Waiting: a few yields (the usual wait is short), then sleep on a condition variable. The
// battery runs oversubscribed (2 cores, several test processes at once): waiters that only
// spun took the processor from the threads they waited for, and a stress test's barrier
// rounds fell 40-fold against std::barrier's futex sleep. std::mutex and
// std::condition_variable are safe here even from an uninstrumented runtime: they reduce to
// pthread calls, which TSan intercepts wherever they are made.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>

namespace saferecl::test {

// Where threads wait for a condition on an atomic: the condition's acquire load is the
// edge; the mutex and condition variable only put waiters to sleep and wake them.
class atomic_waiters {
 public:
  // Returns once done() holds; done() must read its atomic with acquire.
  template <class Done>
  void wait_until(Done done) {
    for (int i = 0; i < kYieldsBeforeSleep; ++i) {
      if (done()) return;
      std::this_thread::yield();
    }
    std::unique_lock lock(mutex_);
    changed_.wait(lock, done);
  }
  // Called after the release store that makes the waiters' condition true. Taking the
  // mutex orders the store before any waiter's check under it: no wake-up is lost.
  void wake_all() {
    { std::lock_guard lock(mutex_); }
    changed_.notify_all();
  }

 private:
  static constexpr int kYieldsBeforeSleep = 64;
  std::mutex mutex_;
  std::condition_variable changed_;
};

// A single-use countdown (std::latch's interface). Everything a thread did before its
// count_down happens before the return of every wait that finds the count at zero: the
// decrements are release RMWs, so they form one release sequence that the acquire load
// reading zero synchronizes with.
class atomic_latch {
 public:
  explicit atomic_latch(std::size_t expected) : count_(expected) {}
  atomic_latch(const atomic_latch&) = delete;
  atomic_latch& operator=(const atomic_latch&) = delete;

  void count_down(std::size_t n = 1) {
    if (count_.fetch_sub(n, std::memory_order_release) == n) waiters_.wake_all();
  }
  void wait() {
    waiters_.wait_until([this] { return count_.load(std::memory_order_acquire) == 0; });
  }
  void arrive_and_wait() {
    count_down();
    wait();
  }

 private:
  std::atomic<std::size_t> count_;
  atomic_waiters waiters_;
};

struct no_completion {
  void operator()() const noexcept {}
};

// A reusable barrier for `parties` threads (std::barrier's arrive_and_wait): the last
// thread to arrive in a phase runs the completion, then releases the others. Everything a
// thread did before arriving happens before the completion, and the completion before
// every thread's return from that phase's arrive_and_wait.
//
// Arrivals are numbered over all phases (a ticket), so the phase of an arrival is
// ticket / parties and nothing is reset between phases: a thread that leaves phase k and
// arrives again at once simply draws a ticket of phase k + 1. The acq_rel increments form
// one release sequence, read by the phase's last arriver; its release store of the
// completed-phase count is what the waiters acquire.
template <class Completion = no_completion>
class atomic_barrier {
 public:
  explicit atomic_barrier(std::size_t parties, Completion completion = Completion())
      : parties_(parties), completion_(std::move(completion)) {}
  atomic_barrier(const atomic_barrier&) = delete;
  atomic_barrier& operator=(const atomic_barrier&) = delete;

  void arrive_and_wait() {
    const std::uint64_t ticket = arrivals_.fetch_add(1, std::memory_order_acq_rel);
    const std::uint64_t phase = ticket / parties_;
    if ((ticket + 1) % parties_ == 0) {
      completion_();
      completed_phases_.store(phase + 1, std::memory_order_release);
      waiters_.wake_all();
      return;
    }
    waiters_.wait_until(
        [&] { return completed_phases_.load(std::memory_order_acquire) > phase; });
  }

 private:
  const std::uint64_t parties_;
  Completion completion_;
  std::atomic<std::uint64_t> arrivals_{0};
  std::atomic<std::uint64_t> completed_phases_{0};
  atomic_waiters waiters_;
};

}  // namespace saferecl::test
