// <rcu>
//
// void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: may evaluate any scheduled evaluations in dom; for any evaluation that
//   happens before the call and schedules an evaluation E in dom, blocks until E has been
//   evaluated.
//   Synchronization: the evaluation of any such E strongly happens before the return from
//   rcu_barrier.
//
// Relies on: rcu_barrier being the one call that proves deleters ran (never
// rcu_synchronize); no barrier caller being inside a region; deleters that write only
// outside the object they free.
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

using saferecl::test::atomic_latch;
using saferecl::test::object_log;
using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::rcu_object;
using saferecl::test::within_watchdog;

namespace {

// Retires n objects, alternating rcu_obj_base::retire and rcu_retire; returns their ids.
std::vector<object_log::id_t> retire_mixed(int n) {
  std::vector<object_log::id_t> ids;
  for (int i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      auto* p = new rcu_object(i);
      ids.push_back(p->id);
      p->retire();
    } else {
      auto* p = new plain_object(i);
      ids.push_back(p->id);
      sut::rcu_retire(p, quarantine_deleter{});
    }
  }
  return ids;
}

int not_reclaimed_once(const std::vector<object_log::id_t>& ids) {
  int bad = 0;
  for (auto id : ids) bad += objects().reclaim_count(id) != 1;
  return bad;
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/4 R33: after rcu_barrier every earlier retire has run once" *
          doctest::test_suite("core.semantic")) {
  const auto ids = retire_mixed(100);
  within_watchdog("rcu_barrier with 100 pending deleters", [] { sut::rcu_barrier(); });
  CHECK(not_reclaimed_once(ids) == 0);
}

TEST_CASE("saferecl.rcu.domain.func/4 R33: rcu_barrier with nothing scheduled returns" *
          doctest::test_suite("core.semantic")) {
  within_watchdog("rcu_barrier with nothing pending", [] {
    sut::rcu_barrier();
    sut::rcu_barrier(sut::rcu_default_domain());
  });
}

TEST_CASE("saferecl.rcu.domain.func/4 R33: rcu_barrier on another thread covers retires that happen before it" *
          doctest::test_suite("core.concurrency")) {
  atomic_latch retired(1);
  std::vector<object_log::id_t> ids;
  std::atomic<int> missing{-1};
  std::thread barrier_thread([&] {
    retired.wait();
    sut::rcu_barrier();
    missing = not_reclaimed_once(ids);
  });
  ids = retire_mixed(100);
  retired.count_down();  // the retires happen before the other thread's barrier
  within_watchdog("rcu_barrier on another thread", [&] { barrier_thread.join(); });
  CHECK(missing.load() == 0);
}

// RS-09: every caller of four concurrent barriers must find every deleter *finished*,
// including those another caller (or any thread) is still running, and must see the
// deleters' plain writes without a data race. Each deleter yields, so that on a small
// machine the other callers get to run while evaluations are in flight.
TEST_CASE("saferecl.rcu.domain.func/5 R34: each of four concurrent rcu_barrier calls sees every earlier deleter finished" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kObjects = 1000;
  static std::array<int, kObjects> written{};  // plain: only happens-before protects it
  struct write_then_delete {
    void operator()(plain_object* p) const noexcept {
      written[static_cast<std::size_t>(p->value)] = p->value + 1;
      delete p;
      std::this_thread::yield();
    }
  };
  for (std::size_t i = 0; i < kObjects; ++i)
    sut::rcu_retire(new plain_object(static_cast<int>(i)), write_then_delete{});

  std::atomic<int> unfinished{0};
  within_watchdog("four concurrent rcu_barrier calls", [&] {
    saferecl::test::run_in_parallel(4, [&](std::size_t) {
      sut::rcu_barrier();
      for (std::size_t i = 0; i < kObjects; ++i)
        if (written[i] != static_cast<int>(i) + 1) unfinished.fetch_add(1);
    });
  });
  CHECK(unfinished.load() == 0);
}
