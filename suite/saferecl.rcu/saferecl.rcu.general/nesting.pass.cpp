// <rcu>
//
// [saferecl.rcu.general]/3-4: a region of RCU protection runs from a lock on a domain to
//   its matching unlock; lock and unlock pair up like nested parentheses within a thread,
//   so an inner unlock does not end the region that encloses it.
// [saferecl.rcu.domain.members]/6: unlock closes the most recently opened unclosed region.
//
// Relies on: the reader's region (and its inner unlock) being confirmed done before the
// checks; rcu_synchronize and rcu_barrier called only from threads that are in no region;
// a short sleep only to show that they have not returned yet.
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

using saferecl::test::blocking_call;
using saferecl::test::objects;
using saferecl::test::rcu_object;
using saferecl::test::region_holder;

namespace {

void lock() noexcept { sut::rcu_default_domain().lock(); }
void unlock() noexcept { sut::rcu_default_domain().unlock(); }

}  // namespace

TEST_CASE("saferecl.rcu.general/4 R2: an inner unlock does not end the enclosing region" *
          doctest::test_suite("core.concurrency")) {
  region_holder reader(
      [] {
        lock();
        lock();
        unlock();  // inner: the outer region is still open
      },
      unlock);
  auto* x = new rcu_object;
  const auto id = x->id;
  x->retire();

  blocking_call sync("rcu_synchronize after the reader's inner unlock", [] { sut::rcu_synchronize(); });
  blocking_call barrier("rcu_barrier after the reader's inner unlock", [] { sut::rcu_barrier(); });
  CHECK(sync.still_blocked());
  CHECK(barrier.still_blocked());
  CHECK_FALSE(objects().reclaimed(id));

  reader.release();
  sync.join();
  barrier.join();
  CHECK(objects().reclaim_count(id) == 1);
}

// RS-12's ordering rule: the thread retires inside its outer region, then opens and closes
// a nested one. The retire does not strongly happen before the start of the outer region,
// so the deleter waits for the outer unlock, whatever the inner unlock does.
TEST_CASE("saferecl.rcu.general/4 R2: an object retired in a region survives a nested lock-unlock in it" *
          doctest::test_suite("core.concurrency")) {
  auto* x = new rcu_object;
  const auto id = x->id;
  region_holder reader(
      [x] {
        lock();
        x->retire();
        lock();
        unlock();
      },
      unlock);

  blocking_call barrier("rcu_barrier after the retiring thread's inner unlock", [] { sut::rcu_barrier(); });
  CHECK(barrier.still_blocked());
  CHECK_FALSE(objects().reclaimed(id));

  reader.release();
  barrier.join();
  CHECK(objects().reclaim_count(id) == 1);
}
