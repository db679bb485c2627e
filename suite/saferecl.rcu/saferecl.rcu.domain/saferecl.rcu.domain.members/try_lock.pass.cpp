// <rcu>
//
// bool try_lock() noexcept;
//   Effects: equivalent to lock().
//   Returns: true.
//
// Relies on: the reader's try_lock being confirmed before the synchronizer starts and
// before the retire; a short sleep only to show that the synchronizer and the barrier have
// not returned yet.
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <atomic>

using saferecl::test::blocking_call;
using saferecl::test::objects;
using saferecl::test::rcu_object;
using saferecl::test::region_holder;

TEST_CASE("saferecl.rcu.domain.members/4 R25: try_lock returns true" *
          doctest::test_suite("core.semantic")) {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  CHECK(dom.try_lock());
  CHECK(dom.try_lock());  // nested, too
  dom.unlock();
  dom.unlock();
}

TEST_CASE("saferecl.rcu.domain.members/3 R25: try_lock opens a region that blocks rcu_synchronize and defers deleters" *
          doctest::test_suite("core.concurrency")) {
  std::atomic<bool> acquired{false};
  region_holder reader([&] { acquired = sut::rcu_default_domain().try_lock(); },
                       [&] {
                         if (acquired) sut::rcu_default_domain().unlock();
                       });
  REQUIRE(acquired);
  auto* x = new rcu_object;
  const auto id = x->id;
  x->retire();

  blocking_call sync("rcu_synchronize beside a try_lock region", [] { sut::rcu_synchronize(); });
  blocking_call barrier("rcu_barrier beside a try_lock region", [] { sut::rcu_barrier(); });
  CHECK(sync.still_blocked());
  CHECK(barrier.still_blocked());
  CHECK_FALSE(objects().reclaimed(id));

  reader.release();
  sync.join();
  barrier.join();
  CHECK(objects().reclaim_count(id) == 1);
}
