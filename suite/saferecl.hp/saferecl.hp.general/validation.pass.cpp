// <hazard_pointer>
//
// [saferecl.hp.general]/6: x is not reclaimed while a protection epoch of h associated with
//   x lasts that began with a try_protect (or protect) whose load of src read a value
//   modification-ordered before an unlink of x that happens before x's retirement -- a
//   successful validation is enough for safety, even when the unlink, the retire and a
//   reclamation pass follow at once.
//
// Relies on: readers checking only objects they protect (HS-17c): a reclaimed object shows
// as a log entry and a poisoned canary (the quarantine keeps its memory mapped), and
// ThreadSanitizer reports the reader's reads if validation were missing.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <atomic>
#include <cstddef>

using saferecl::test::churn;
using saferecl::test::hp_object;
using saferecl::test::objects;

TEST_CASE("saferecl.hp.general/6 H8: an object validated by try_protect is not reclaimed while protected" *
          doctest::test_suite("core.concurrency")) {
  const std::size_t replacements = saferecl::test::scaled(10'000);
  std::atomic<hp_object*> src{new hp_object(0)};
  std::atomic<bool> done{false};
  std::atomic<std::size_t> validated{0};
  std::atomic<std::size_t> violations{0};

  auto writer = [&] {
    for (std::size_t i = 1; i <= replacements; ++i) {
      src.exchange(new hp_object(static_cast<int>(i)), std::memory_order_acq_rel)->retire();
      if (i % 64 == 0) churn(saferecl::test::kChurnRound);  // a pass right after an unlink
    }
    done.store(true, std::memory_order_release);
  };
  auto reader = [&] {
    sut::hazard_pointer h = sut::make_hazard_pointer();
    while (!done.load(std::memory_order_acquire)) {
      hp_object* p = src.load(std::memory_order_relaxed);  // unprotected until validated
      if (!h.try_protect(p, src)) continue;
      validated.fetch_add(1, std::memory_order_relaxed);
      const int value = p->value;
      for (int look = 0; look < 16; ++look) {  // keep looking while the writer may reclaim
        if (objects().reclaimed(p->id) || !p->alive() || p->value != value) {
          violations.fetch_add(1, std::memory_order_relaxed);
          break;
        }
      }
    }
  };
  saferecl::test::within_watchdog("writer unlinks, retires and churns while a reader validates", [&] {
    saferecl::test::run_in_parallel(2, [&](std::size_t i) { i == 0 ? writer() : reader(); });
  });
  CHECK(violations.load() == 0);
  WARN_MESSAGE(validated.load() > 0, "the reader never validated: the check was vacuous");
  src.exchange(nullptr)->retire();
}
