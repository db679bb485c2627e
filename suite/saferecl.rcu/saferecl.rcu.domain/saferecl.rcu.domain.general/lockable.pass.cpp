// <rcu>
//
// [saferecl.rcu.domain.general]/1: rcu_domain meets the Cpp17Lockable requirements
//   ([thread.req.lockable.req]) and provides regions of RCU protection.
//   [Example: std::scoped_lock<rcu_domain> rlock(rcu_default_domain()); -- end example]
//
// Relies on: each guard staying in the thread that created it (unlock must be sequenced
// after its lock in the same thread); the guarding thread's region being confirmed open
// before the synchronizer starts; a short sleep only to show that it has not returned yet.
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <mutex>
#include <optional>
#include <utility>

using saferecl::test::blocking_call;
using saferecl::test::region_holder;

namespace {

sut::rcu_domain& dom() noexcept { return sut::rcu_default_domain(); }

// A reader thread whose region is a guard object's lifetime: `build` emplaces the guard,
// destroying it must close the region. A synchronizer must wait for exactly that.
template <class Guard, class Build>
void check_guard_holds_region(Build build) {
  std::optional<Guard> guard;
  bool owns = false;
  region_holder reader(
      [&] {
        build(guard);
        if constexpr (requires { guard->owns_lock(); }) owns = guard->owns_lock();
        else owns = true;
      },
      [&] { guard.reset(); });
  CHECK(owns);

  blocking_call sync("rcu_synchronize beside a guard's region", [] { sut::rcu_synchronize(); });
  CHECK(sync.still_blocked());
  reader.release();
  sync.join();
}

// Built in one function, returned (moved) to the caller, then moved again: ownership of
// the region travels with the object, within one thread.
std::unique_lock<sut::rcu_domain> region_from_a_function() {
  std::unique_lock<sut::rcu_domain> guard(dom(), std::defer_lock);
  guard.lock();
  return guard;
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.general/1 R21: scoped_lock<rcu_domain> holds a region for its lifetime" *
          doctest::test_suite("core.concurrency")) {
  using guard = std::scoped_lock<sut::rcu_domain>;
  check_guard_holds_region<guard>([](std::optional<guard>& g) { g.emplace(dom()); });
}

TEST_CASE("saferecl.rcu.domain.general/1 R21: lock_guard<rcu_domain> holds a region for its lifetime" *
          doctest::test_suite("core.concurrency")) {
  using guard = std::lock_guard<sut::rcu_domain>;
  check_guard_holds_region<guard>([](std::optional<guard>& g) { g.emplace(dom()); });
}

TEST_CASE("saferecl.rcu.domain.general/1 R21: unique_lock<rcu_domain> returned from a function and moved holds the region" *
          doctest::test_suite("core.concurrency")) {
  using guard = std::unique_lock<sut::rcu_domain>;
  check_guard_holds_region<guard>([](std::optional<guard>& g) {
    guard returned = region_from_a_function();
    guard moved(std::move(returned));
    g = std::move(moved);
  });
}

TEST_CASE("saferecl.rcu.domain.general/1 R21: unique_lock<rcu_domain> with try_to_lock owns a region" *
          doctest::test_suite("core.concurrency")) {
  using guard = std::unique_lock<sut::rcu_domain>;
  check_guard_holds_region<guard>(
      [](std::optional<guard>& g) { g.emplace(dom(), std::try_to_lock); });
}

TEST_CASE("saferecl.rcu.domain.general/1 R21: std::lock and std::try_lock take rcu_domain with a mutex" *
          doctest::test_suite("core.semantic")) {
  std::mutex m;
  std::lock(dom(), m);
  m.unlock();
  dom().unlock();

  const int failed = std::try_lock(dom(), m);  // -1: every argument was locked
  CHECK(failed == -1);
  if (failed == -1) {
    m.unlock();
    dom().unlock();
  }
}
