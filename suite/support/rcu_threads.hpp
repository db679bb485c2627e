// RCU thread helpers: a reader thread that holds a region open until it is released, and a
// blocking call (rcu_synchronize, rcu_barrier) run on a thread of its own, so that the test
// can check that it has *not yet* returned.
//
//   saferecl::test::region_holder reader;           // returns once the reader is inside
//   saferecl::test::blocking_call sync("rcu_synchronize", [] { sut::rcu_synchronize(); });
//   CHECK(sync.still_blocked());                     // the only place a test sleeps
//   reader.release();
//   sync.join();                                     // under the watchdog
#pragma once

#include <sut.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <utility>

#include "support/threads.hpp"
#include "support/watchdog.hpp"

namespace saferecl::test {

// How long a negative check waits before concluding that a call is still blocked. A correct
// implementation always passes such a check; a broken one is caught when the call returns
// within this time (requirements.md §2.9/6).
inline constexpr std::chrono::milliseconds kStillBlockedFor{150};

// A call that may block, started on a thread of its own at construction.
class blocking_call {
 public:
  template <class Call>
  blocking_call(std::string what, Call call)
      : what_(std::move(what)), thread_([this, call = std::move(call)]() mutable {
          call();
          returned_.set();
        }) {}
  blocking_call(const blocking_call&) = delete;
  blocking_call& operator=(const blocking_call&) = delete;
  ~blocking_call() { join(); }

  bool returned() const noexcept { return returned_.is_set(); }

  // True if the call has not returned within `wait`: a negative check (it can miss a
  // bug, it cannot fail falsely).
  bool still_blocked(std::chrono::milliseconds wait = kStillBlockedFor) {
    return !returned_.wait_for(wait);
  }

  // True if the call returned within `limit`; for calls that should return while
  // something else is still held, where a hang must become a failed check, not a timeout.
  bool returns_within(std::chrono::milliseconds limit) { return returned_.wait_for(limit); }

  void join() {
    if (thread_.joinable()) within_watchdog(what_, [this] { thread_.join(); });
  }

 private:
  std::string what_;
  event returned_;
  std::thread thread_;  // last: it starts running at construction
};

// A thread inside a region: the constructor returns once the thread's `enter` step (by
// default rcu_default_domain().lock()) has run, so the region is confirmed open -- its lock
// happens before everything the caller does next. release() lets the thread run `leave`
// (by default unlock()) and end.
class region_holder {
 public:
  using step = std::function<void()>;

  region_holder() : region_holder(lock_default, unlock_default) {}
  region_holder(step enter, step leave)
      : thread_([this, enter = std::move(enter), leave = std::move(leave)] {
          enter();
          inside_.set();
          released_.wait();
          leave();
        }) {
    within_watchdog("a reader entering its region", [this] { inside_.wait(); });
  }
  region_holder(const region_holder&) = delete;
  region_holder& operator=(const region_holder&) = delete;
  ~region_holder() {
    release();
    join();
  }

  void release() { released_.set(); }
  void join() {
    if (thread_.joinable()) within_watchdog("a reader leaving its region", [this] { thread_.join(); });
  }

  static void lock_default() noexcept { sut::rcu_default_domain().lock(); }
  static void unlock_default() noexcept { sut::rcu_default_domain().unlock(); }

 private:
  event inside_;
  event released_;
  std::thread thread_;  // last: it starts running at construction
};

}  // namespace saferecl::test
