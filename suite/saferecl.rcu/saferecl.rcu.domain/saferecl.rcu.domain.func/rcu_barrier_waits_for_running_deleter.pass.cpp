// <rcu>
//
// void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: may evaluate any scheduled evaluations in dom; for any evaluation that
//   happens before the call and schedules an evaluation E in dom, blocks until E has been
//   evaluated.
//   Synchronization: the evaluation of any such E strongly happens before the return from
//   rcu_barrier.
//
// "Has been evaluated" means finished, not merely taken off a queue: a barrier must also
// wait for an earlier evaluation that another thread is running right now (MR-12, RS-09).
// Here the one deleter is held inside its evaluation until the test lets it go, so the
// check is deterministic rather than a race between concurrent barriers.
//
// Relies on: the deleter running on some thread other than the main one (the main thread
// makes no <rcu> call until the deleter has started); the deleter's wait being bounded, so
// an implementation that runs it somewhere unexpected cannot hang the test; a short sleep
// only to show that the second barrier has not returned yet.
#include "support/rcu_objects.hpp"
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <atomic>
#include <chrono>
#include <thread>

using saferecl::test::blocking_call;
using saferecl::test::event;
using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::within_watchdog;

namespace {

event g_deleter_started;
event g_deleter_may_finish;
int g_deleter_result = 0;  // plain: only the barrier's happens-before protects the read
std::thread::id g_main_thread;
std::atomic<bool> g_ran_on_main{false};

struct held_deleter {
  void operator()(plain_object* p) const noexcept {
    if (std::this_thread::get_id() == g_main_thread) g_ran_on_main.store(true);
    g_deleter_started.set();
    (void)g_deleter_may_finish.wait_for(std::chrono::seconds(20));  // bounded on purpose
    g_deleter_result = p->value;
    objects().record_reclaim(p->id, p);
    delete p;
  }
};

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/4 R33: rcu_barrier waits for an earlier deleter that another thread is still running" *
          doctest::test_suite("core.concurrency")) {
  g_main_thread = std::this_thread::get_id();
  auto* x = new plain_object(42);
  const auto id = x->id;

  // Thread A schedules x and calls rcu_barrier: wherever the deleter runs (in A's retire or
  // barrier, or in a helper of the implementation), it is not the main thread.
  std::thread first([x] {
    sut::rcu_retire(x, held_deleter{});
    sut::rcu_barrier();
  });
  const bool started =
      within_watchdog("the held deleter starts", [] { return g_deleter_started.wait_for(std::chrono::seconds(30)); });
  REQUIRE(started);
  REQUIRE_FALSE(g_ran_on_main.load());

  // The retire happened before the deleter started, which happened before this point: a
  // barrier called now covers x and must not return while x's deleter is still running.
  blocking_call second("rcu_barrier while another thread runs the earlier deleter",
                       [] { sut::rcu_barrier(); });
  const bool blocked = second.still_blocked();
  g_deleter_may_finish.set();
  second.join();
  within_watchdog("the first barrier returns", [&] { first.join(); });

  CHECK_MESSAGE(blocked, "rcu_barrier returned while an earlier deleter was still running");
  CHECK(g_deleter_result == 42);  // read after both barriers: no race
  CHECK(objects().reclaim_count(id) == 1);
}
