// <rcu>
//
// void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: may evaluate any scheduled evaluations in dom; for any evaluation that
//   happens before the call and schedules an evaluation E in dom, blocks until E has been
//   evaluated.
//   Synchronization: the evaluation of any such E strongly happens before the return from
//   rcu_barrier.
//
// Evaluations may finish out of order when several threads run them: here the earliest
// deleter is held on the test's own event while later deleters, scheduled after two
// barriers began, are free to finish on whatever thread runs them. A barrier that waits
// for a count of finished evaluations (MR-61) reaches its count through the later ones and
// returns while the earliest still runs; every barrier must instead find, at its return,
// every deleter scheduled before it finished.
//
// Relies on: the held deleter running on some thread other than the main one (the main
// thread makes no <rcu> call until it has started); its wait being bounded; an
// implementation that runs the later deleters only after the held one finishes (a single
// callback thread) passing trivially; short sleeps only to show that barriers have not
// returned yet.
#include "support/rcu_objects.hpp"
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <atomic>
#include <chrono>
#include <thread>

using saferecl::test::blocking_call;
using saferecl::test::event;
using saferecl::test::plain_object;
using saferecl::test::within_watchdog;

namespace {

constexpr int kLater = 8;  // deleters scheduled while the held one runs

event g_held_started;
event g_held_may_finish;
std::atomic<bool> g_held_finished{false};
std::atomic<int> g_later_finished{0};
std::thread::id g_main_thread;
std::atomic<bool> g_held_ran_on_main{false};

struct held_deleter {
  void operator()(plain_object* p) const noexcept {
    if (std::this_thread::get_id() == g_main_thread) g_held_ran_on_main.store(true);
    g_held_started.set();
    (void)g_held_may_finish.wait_for(std::chrono::seconds(20));  // bounded on purpose
    delete p;
    g_held_finished.store(true);
  }
};

struct counting_deleter {
  void operator()(plain_object* p) const noexcept {
    delete p;
    g_later_finished.fetch_add(1);
  }
};

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/4 R33 R34: barriers wait for an earlier deleter while later ones finish on other threads" *
          doctest::test_suite("core.concurrency")) {
  g_main_thread = std::this_thread::get_id();
  std::atomic<bool> first_saw_unfinished{false}, second_saw_unfinished{false},
      third_saw_unfinished{false};

  // The first barrier's thread schedules the held deleter: it starts somewhere else than
  // the main thread (in that thread's retire or barrier, or in a helper thread).
  std::thread first([&] {
    sut::rcu_retire(new plain_object(1), held_deleter{});
    sut::rcu_barrier();
    if (!g_held_finished.load()) first_saw_unfinished.store(true);
  });
  const bool started = within_watchdog(
      "the held deleter starts", [] { return g_held_started.wait_for(std::chrono::seconds(30)); });
  REQUIRE(started);
  REQUIRE_FALSE(g_held_ran_on_main.load());

  // Two more barriers begin after the held deleter started: both cover it. The later
  // deleters are scheduled after the second began and before the third, and the third
  // barrier's caller (or anyone) may run them while the held one still runs.
  blocking_call second("rcu_barrier while an earlier deleter is held", [&] {
    sut::rcu_barrier();
    if (!g_held_finished.load()) second_saw_unfinished.store(true);
  });
  const bool second_blocked_before = second.still_blocked();
  for (int i = 0; i < kLater; ++i) sut::rcu_retire(new plain_object(100 + i), counting_deleter{});
  blocking_call third("rcu_barrier after later deleters were scheduled", [&] {
    sut::rcu_barrier();
    if (!g_held_finished.load() || g_later_finished.load() != kLater)
      third_saw_unfinished.store(true);
  });
  // Give the later deleters time to finish if the implementation runs them now.
  for (int i = 0; i < 50 && g_later_finished.load() != kLater; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool second_blocked = second_blocked_before && second.still_blocked();
  const bool third_blocked = third.still_blocked();
  MESSAGE(g_later_finished.load(), " of ", kLater,
          " later deleters finished while the earlier one was held");

  g_held_may_finish.set();
  second.join();
  third.join();
  within_watchdog("the first barrier returns", [&] { first.join(); });

  CHECK_MESSAGE(second_blocked, "rcu_barrier returned while an earlier deleter was still running");
  CHECK_MESSAGE(third_blocked, "rcu_barrier returned while an earlier deleter was still running");
  CHECK_FALSE(first_saw_unfinished.load());
  CHECK_FALSE(second_saw_unfinished.load());
  CHECK_FALSE(third_saw_unfinished.load());
}
