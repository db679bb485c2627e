// <rcu>
//
// [saferecl.rcu.domain.general]/2: rcu_domain meets the Cpp17Lockable requirements; calls
//   to lock may be nested: a thread may lock the domain it is already in a region of.
//   (No depth limit is specified.)
//
// Relies on: the nesting thread's lock happening before each synchronizer starts (a
// synchronizer is started by the nesting thread itself, on a thread of its own); short
// sleeps only to show that a synchronizer has not returned yet; no rcu_synchronize or
// rcu_barrier called inside the nesting thread's region.
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <cstddef>
#include <memory>
#include <vector>

using saferecl::test::blocking_call;
using saferecl::test::objects;
using saferecl::test::rcu_object;
using saferecl::test::region_holder;

namespace {

sut::rcu_domain& dom() noexcept { return sut::rcu_default_domain(); }

}  // namespace

TEST_CASE("saferecl.rcu.domain.general/2 R22: lock and try_lock nest 64 deep and the region lasts to the last unlock" *
          doctest::test_suite("core.concurrency")) {
  constexpr int kDepth = 64;
  int held = 0;  // regions actually opened: never unlock more than that
  region_holder reader(
      [&] {
        for (int depth = 0; depth < kDepth; ++depth) {
          if (depth % 2 == 0) {
            dom().lock();
            ++held;
          } else if (dom().try_lock()) {
            ++held;
          }
        }
        for (int depth = held; depth > 1; --depth) dom().unlock();
      },
      [] { dom().unlock(); });
  REQUIRE(held == kDepth);  // try_lock returned true every time
  auto* x = new rcu_object;
  const auto id = x->id;
  x->retire();

  blocking_call barrier("rcu_barrier beside a region nested 64 deep, unwound to depth 1",
                        [] { sut::rcu_barrier(); });
  CHECK(barrier.still_blocked());
  CHECK_FALSE(objects().reclaimed(id));
  reader.release();
  barrier.join();
  CHECK(objects().reclaim_count(id) == 1);
}

// Far past 2^16, where a nesting counter packed into 16 bits (or any narrow field) wraps.
// At every depth where such a counter would read 0 or 1 -- on the way in and on the way
// out -- a fresh rcu_synchronize starts on another thread and must stay blocked: this
// thread's outermost region is still open.
TEST_CASE("saferecl.rcu.domain.general/2 R22: one thread nests past 2^16 levels and stays protected throughout" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kDeep = (std::size_t{1} << 17) + 3;
  constexpr std::size_t kWrap = std::size_t{1} << 16;
  std::vector<std::unique_ptr<blocking_call>> synchronizers;
  auto check_still_protected = [&](std::size_t depth) {
    synchronizers.push_back(std::make_unique<blocking_call>(
        "rcu_synchronize started inside a deep nest", [] { sut::rcu_synchronize(); }));
    CHECK_MESSAGE(synchronizers.back()->still_blocked(saferecl::test::kStillBlockedFor / 2),
                  "rcu_synchronize returned while the region was open, nesting depth " << depth);
  };
  auto at_a_wrap = [&](std::size_t depth) { return depth % kWrap <= 1; };

  for (std::size_t depth = 1; depth <= kDeep; ++depth) {
    dom().lock();
    if (depth > 1 && at_a_wrap(depth)) check_still_protected(depth);
  }
  check_still_protected(kDeep);
  for (std::size_t depth = kDeep; depth > 1; --depth) {
    dom().unlock();
    if (at_a_wrap(depth - 1)) check_still_protected(depth - 1);
  }
  dom().unlock();
  for (auto& synchronizer : synchronizers) synchronizer->join();
}
