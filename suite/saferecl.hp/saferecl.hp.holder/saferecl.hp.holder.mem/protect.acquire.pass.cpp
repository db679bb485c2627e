// <hazard_pointer>
//
// template<class T> bool try_protect(T*& ptr, const atomic<T*>& src) noexcept;
//   Effects: ... assigns src.load(memory_order::acquire) to ptr ...
// (protect is try_protect in a loop, so it inherits the acquire load.)
//
// Relies on: ThreadSanitizer seeing a race when a reader reaches plainly written fields
// without a happens-before edge from the writer (HS-17a); the values are also checked, so
// the unsanitized tiers see a stale read as a failure too.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <atomic>
#include <cstddef>

using saferecl::test::hp_object;
using saferecl::test::objects;

TEST_CASE("saferecl.hp.holder.mem/5 H31: protect's acquire load makes a release-published object's fields visible" *
          doctest::test_suite("core.concurrency")) {
  const std::size_t publications = saferecl::test::scaled(20'000);
  std::atomic<hp_object*> src{new hp_object(0)};
  std::atomic<bool> done{false};
  std::atomic<std::size_t> violations{0};

  auto writer = [&] {
    for (std::size_t i = 1; i <= publications; ++i) {
      auto* fresh = new hp_object(static_cast<int>(i));  // plain writes: id, canary, value
      src.exchange(fresh, std::memory_order_acq_rel)->retire();
    }
    done.store(true, std::memory_order_release);
  };
  auto reader = [&] {
    sut::hazard_pointer h = sut::make_hazard_pointer();
    int last = 0;
    while (!done.load(std::memory_order_acquire)) {
      const hp_object* p = h.protect(src);
      // Values only grow: src's modification order is the order of publication.
      if (!p->alive() || p->value < last || objects().reclaimed(p->id))
        violations.fetch_add(1, std::memory_order_relaxed);
      last = p->value;
    }
  };
  saferecl::test::within_watchdog("writer publishes while a reader protects", [&] {
    saferecl::test::run_in_parallel(2, [&](std::size_t i) { i == 0 ? writer() : reader(); });
  });
  CHECK(violations.load() == 0);
  src.exchange(nullptr)->retire();
}
