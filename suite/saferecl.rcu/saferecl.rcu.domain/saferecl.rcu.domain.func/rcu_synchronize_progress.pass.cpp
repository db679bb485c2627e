// <rcu>
//
// void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: if the call does not strongly happen before the lock opening a region R,
//   blocks until the unlock closing R happens.
//
// Only regions that may have begun before the call hold it up. Regions that begin while it
// waits should not (RS-05), or readers that keep overlapping would starve every grace
// period -- and every deleter with them. Whether the wording forbids waiting for a region
// whose lock races with the call is a matter of reading, hence QoI.
//
// Relies on: a relay of two readers in which a new region always opens before the previous
// one closes, so that some region is open at every instant; a generous watchdog as the
// only limit.
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <atomic>
#include <thread>

using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::within_watchdog;

namespace {

sut::rcu_domain& dom() noexcept { return sut::rcu_default_domain(); }

// Two threads hand a baton back and forth; each opens its next region before letting the
// other close its current one. baton == 2 + k: thread k is inside and the other may leave.
class overlapping_readers {
 public:
  overlapping_readers() {
    for (int k = 0; k < 2; ++k) threads_.spawn([this, k] { relay(k); });
    within_watchdog("the relay starting", [this] {
      while (baton_.load() < 2) std::this_thread::yield();
    });
  }
  ~overlapping_readers() {
    stop_ = true;
    within_watchdog("the relay stopping", [this] { threads_.join(); });
  }

 private:
  void relay(int me) {
    const int other = 1 - me;
    dom().lock();
    if (me == 1) baton_ = 2 + me;  // both inside: thread 0 may leave first
    for (;;) {
      while (baton_.load() != 2 + other) {
        if (stop_.load()) {
          dom().unlock();
          return;
        }
        std::this_thread::yield();
      }
      dom().unlock();  // the other thread is inside: some region stays open
      dom().lock();
      baton_ = 2 + me;
    }
  }

  std::atomic<int> baton_{0};
  std::atomic<bool> stop_{false};
  saferecl::test::thread_group threads_;
};

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/2 R32: readers that always overlap do not starve rcu_synchronize" *
          doctest::test_suite("qoi.concurrency")) {
  overlapping_readers readers;
  within_watchdog("rcu_synchronize x20 beside overlapping readers", [](saferecl::test::watchdog& wd) {
    for (int i = 0; i < 20; ++i) {
      sut::rcu_synchronize();
      wd.progressed();
    }
  });
}

TEST_CASE("saferecl.rcu.domain.func/4 R32: readers that always overlap do not starve rcu_barrier" *
          doctest::test_suite("qoi.concurrency")) {
  overlapping_readers readers;
  auto* p = new plain_object;
  const auto id = p->id;
  sut::rcu_retire(p, quarantine_deleter{});
  within_watchdog("rcu_barrier beside overlapping readers", [] { sut::rcu_barrier(); });
  CHECK(objects().reclaim_count(id) == 1);
}
