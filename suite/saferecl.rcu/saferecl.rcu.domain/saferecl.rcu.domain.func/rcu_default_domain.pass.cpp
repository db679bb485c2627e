// <rcu>
//
// rcu_domain& rcu_default_domain() noexcept;
//   Returns: a reference to a static-duration object of type rcu_domain. A reference to
//   the same object is returned every time this function is called.
//
// Relies on: nothing beyond the declaration; not exercised during static destruction; fork
// (the last case repeats the first calls in fresh child processes).
#include "support/fresh_processes.hpp"
#include "support/test.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <type_traits>

TEST_CASE("saferecl.rcu.domain.func/1 R28: rcu_default_domain returns the same object, in every thread" *
          doctest::test_suite("core.semantic")) {
  static_assert(std::is_same_v<decltype(sut::rcu_default_domain()), sut::rcu_domain&>);
  sut::rcu_domain* first = &sut::rcu_default_domain();
  CHECK(first == &sut::rcu_default_domain());
  std::atomic<int> mismatches{0};
  saferecl::test::run_in_parallel(8, [&](std::size_t) {
    if (&sut::rcu_default_domain() != first) mismatches.fetch_add(1);
  });
  CHECK(mismatches.load() == 0);
}

// A domain made or looked up on first use must be so under a once-guarantee: here the first
// calls of the process come from eight threads at once.
TEST_CASE("saferecl.rcu.domain.func/1 R28: concurrent first calls of rcu_default_domain return one object" *
          doctest::test_suite("core.concurrency")) {
  std::array<std::atomic<sut::rcu_domain*>, 8> seen{};
  saferecl::test::run_in_parallel(seen.size(), [&](std::size_t i) { seen[i] = &sut::rcu_default_domain(); });
  for (const auto& domain : seen) CHECK(domain.load() == seen[0].load());
  CHECK(seen[0].load() == &sut::rcu_default_domain());
}

// The race above happens once per process, and a defect that makes two objects shows only
// when that one race goes wrong; without a race detector (ASan, optimized) nothing else
// shows it. So the first calls are repeated in many fresh processes.
TEST_CASE("saferecl.rcu.domain.func/1 R28: concurrent first calls of rcu_default_domain return one object, in each of many fresh processes" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kProcesses = 24;  // MR-60 shows in the first 10 under ASan
  const bool passed = saferecl::test::passes_in_fresh_processes(kProcesses, [] {
    std::array<std::atomic<sut::rcu_domain*>, 8> seen{};
    saferecl::test::run_in_parallel(seen.size(), [&](std::size_t i) { seen[i] = &sut::rcu_default_domain(); });
    for (const auto& domain : seen)
      if (domain.load() != seen[0].load()) return false;
    return seen[0].load() == &sut::rcu_default_domain();
  });
  CHECK_MESSAGE(passed, "in a fresh process (of ", kProcesses,
                "), concurrent first calls returned different objects, or it failed (above)");
}
