// <hazard_pointer> torture HX-06: a counter made of immutable boxes, updated by CAS.
// REQUIRES: hazard-pointer
//
// Scenario: the counter is an atomic pointer to an immutable box. An increment protects
// the current box, reads its value, allocates a box holding value + 1 and CASes it in;
// the winner retires the old box, a loser deletes its unpublished box and retries. Even
// workers protect with protect(); odd ones load the box pointer and sleep a microsecond
// before every try_protect() (the first included), so that validation often has to refuse
// a stale pointer -- whose box may be long reclaimed.
//
// Invariants ([saferecl.hp.general]/6, H8): every box read under protection is intact;
// the final value equals the number of successful increments (no lost update: a box that
// was reclaimed and reallocated at the same address under a stale CAS would lose one).
//
// Knobs: 0.6 s quick, 1.5 s x scale above it (suite/README.md, "Stress durations"); 4 workers
// (x sqrt(scale)).
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct box : payload, sut::hazard_pointer_obj_base<box, poison<box>> {
  explicit box(std::uint64_t v) : payload(v) {}
};

}  // namespace

TEST_CASE("saferecl.hp.general/6 H8 HX-06: a CAS counter of immutable boxes loses no update" *
          doctest::test_suite("core.stress")) {
  const std::size_t workers = threads(4);
  const auto duration = stress_duration(600ms, 1500ms);
  print_config("HX-06", {{"workers", str(workers)}, {"duration_ms", str(duration.count())}});

  std::atomic<box*> counter{new box(0)};
  torture t("HX-06");
  std::vector<progress> increments(workers);
  for (std::size_t i = 0; i < workers; ++i) t.watch("worker " + str(i), increments[i]);
  std::vector<std::uint64_t> conflicts(workers);

  thread_group group;
  for (std::size_t w = 0; w < workers; ++w)
    group.spawn([&, w] {
      segment seg("worker " + str(w), w, "value", "intact");
      sut::hazard_pointer h = sut::make_hazard_pointer();
      const bool sleepy = w % 2 == 1;
      for (std::uint64_t it = 0; t.running(); ++it) {
        box* b;
        if (sleepy) {  // the guess goes stale while sleeping: try_protect must refuse it
          b = counter.load(std::memory_order_relaxed);
          do std::this_thread::sleep_for(1us);
          while (!h.try_protect(b, counter));
        } else {
          b = h.protect(counter);
        }
        const std::uint64_t v = b->value();
        const bool ok = b->intact();
        seg.record({it, v, {}, ok});
        if (!ok) {
          t.fail(seg, "an increment read a poisoned box");
          break;
        }
        box* fresh = new box(v + 1);
        box* expected = b;
        if (counter.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel,
                                            std::memory_order_relaxed)) {
          h.reset_protection();
          b->retire();
          increments[w].bump();
        } else {
          delete fresh;
          ++conflicts[w];
        }
      }
    });

  t.run(duration);
  t.join(group);
  box* last = counter.exchange(nullptr);
  const std::uint64_t final_value = last->value();
  t.settle("retiring the last object", [&] { last->retire(); });
  std::uint64_t total = 0, total_conflicts = 0;
  for (std::size_t w = 0; w < workers; ++w) {
    total += increments[w].get();
    total_conflicts += conflicts[w];
  }
  t.summary({{"increments", str(total)}, {"final_value", str(final_value)},
             {"cas_conflicts", str(total_conflicts)},
             {"reclaimed", str(ledger<box>::reclaimed.load())}});
  CHECK(t.passed());
  CHECK(final_value == total);
  CHECK(ledger<box>::repeated.load() == 0);
}
