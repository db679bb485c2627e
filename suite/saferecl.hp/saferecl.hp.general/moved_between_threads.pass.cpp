// <hazard_pointer>
//
// [saferecl.hp.general]/1: a hazard pointer has at most one owning thread at any time;
//   ownership moves with the hazard_pointer object that owns it.
//
// Relies on: a hazard_pointer being handed to another thread with proper synchronization
// (thread start, join, events), never used by two threads at once; churn being the only
// portable way to provoke reclamation.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

using saferecl::test::churn;
using saferecl::test::event;
using saferecl::test::hp_object;
using saferecl::test::objects;
using saferecl::test::published;

TEST_CASE("saferecl.hp.general/1 H1: a hazard_pointer moved to another thread keeps protecting, is reused and destroyed there" *
          doctest::test_suite("core.concurrency")) {
  published x(1), y(2);
  event holding_x, x_retired, holding_y, y_retired, released;
  std::atomic<std::size_t> violations{0};

  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);

  saferecl::test::within_watchdog("a thread keeps, reuses and destroys a hazard_pointer made here", [&] {
    std::thread adopter([&, h = std::move(h)]() mutable {  // makes no hazard pointer itself
      holding_x.set();
      x_retired.wait();
      if (!p->alive() || p->value != 1) violations.fetch_add(1);
      hp_object* q = h.protect(y.src);
      holding_y.set();
      y_retired.wait();
      if (!q->alive() || q->value != 2) violations.fetch_add(1);
      h = sut::hazard_pointer{};
      released.set();
    });
    holding_x.wait();
    const auto x_id = x.unlink_and_retire();
    churn();
    CHECK_FALSE(objects().reclaimed(x_id));
    x_retired.set();

    holding_y.wait();
    const auto y_id = y.unlink_and_retire();
    churn();
    CHECK_FALSE(objects().reclaimed(y_id));
    y_retired.set();

    // Keep this thread's own hazard pointers busy while the adopter destroys the one made
    // here: a release that writes into the maker's per-thread state races with this.
    do {
      sut::hazard_pointer busy = sut::make_hazard_pointer();
    } while (!released.is_set());
    adopter.join();
  });
  CHECK(violations.load() == 0);
}

TEST_CASE("saferecl.hp.general/1 H1: a hazard_pointer made by a thread that has exited keeps protecting and is destroyed here" *
          doctest::test_suite("core.concurrency")) {
  published z(3);
  std::optional<sut::hazard_pointer> handed_over;
  hp_object* p = nullptr;

  saferecl::test::within_watchdog("a thread makes a hazard_pointer, protects and exits", [&] {
    std::thread maker([&] {
      sut::hazard_pointer h = sut::make_hazard_pointer();
      p = h.protect(z.src);
      handed_over.emplace(std::move(h));
    });
    maker.join();
  });
  z.unlink_and_retire();
  CHECK(saferecl::test::intact_after_churn(*p));
  handed_over.reset();

  // The hazard pointer is gone; hazard pointers made afterwards work as usual.
  published w(4);
  sut::hazard_pointer fresh = sut::make_hazard_pointer();
  hp_object* q = fresh.protect(w.src);
  w.unlink_and_retire();
  CHECK(saferecl::test::intact_after_churn(*q));
}

// Warm state: implementations recycle a thread's records (a per-thread cache, a free list),
// so the hazard pointer handed over here is made from records its thread already used and
// returned, and after its maker exits, new threads take whatever records that exit gave
// back. The protection must survive both: a record owned by a live hazard_pointer is never
// handed to another one.
TEST_CASE("saferecl.hp.general/1 H1: warm: a hazard_pointer made from recycled records keeps protecting after its maker exits and new threads reuse records" *
          doctest::test_suite("core.concurrency")) {
  constexpr int kRecycleRounds = 8;      // make and destroy a few, several times
  constexpr std::size_t kHeldAtOnce = 64;  // per replacing thread: more than any cache holds
  published z(5), w(6);
  std::optional<sut::hazard_pointer> handed_over;
  hp_object* p = nullptr;

  saferecl::test::within_watchdog("a thread recycles hazard pointers, hands one over, exits; two replace it", [&] {
    std::thread maker([&] {
      for (int round = 0; round < kRecycleRounds; ++round) {
        std::array<sut::hazard_pointer, 3> some;
        for (auto& h : some) h = sut::make_hazard_pointer();
      }
      sut::hazard_pointer h = sut::make_hazard_pointer();
      p = h.protect(z.src);
      handed_over.emplace(std::move(h));
    });
    maker.join();
    // Threads that replace the exited one: each holds many hazard pointers at once, all
    // protecting w, so a record given back twice would be taken and overwritten here.
    saferecl::test::run_in_parallel(2, [&](std::size_t) {
      std::vector<sut::hazard_pointer> held;
      for (std::size_t i = 0; i < kHeldAtOnce; ++i) {
        held.push_back(sut::make_hazard_pointer());
        (void)held.back().protect(w.src);
      }
    });
  });
  z.unlink_and_retire();
  CHECK(saferecl::test::intact_after_churn(*p));
  handed_over.reset();
}
