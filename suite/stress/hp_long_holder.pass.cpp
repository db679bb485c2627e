// <hazard_pointer> torture HX-11: one protection held for seconds while passes meet.
// REQUIRES: hazard-pointer
//
// Scenario: a holder protects the object of a slot and keeps the protection for kHold,
// checking the object every millisecond (each check is a tick: its progress). Once it holds,
// the writer replaces the object and retires it, so the held object waits in the writer's
// retired list through every pass of the writer. The writer and the retirers retire fresh
// objects as fast as they can, so passes run back to back on several threads at once, for
// the whole hold (thousands of them: the summary counts what was reclaimed). One deleter in
// kSleepyOneIn sleeps kSleep: a pass that runs it is descheduled for milliseconds in the middle
// of its walk while other threads' passes run, so an implementation whose pass stops waiting
// for another after a timeout and proceeds into shared state (mutant MH-95) meets that pass.
//
// Invariants ([saferecl.hp.general]/6 H8): an object protected since before its retire stays
// intact for as long as the protection lasts, however long that is and however many passes
// run meanwhile; no object is reclaimed twice. Nothing is required to be reclaimed.
//
// The hold lasts 5.5 s: longer than any timeout after which an implementation might presume
// a holder or a pass dead (1 s, 2 s, 5 s). The holder sleeps; the test runs beside other
// tests (suite "core.concurrency": one CPU, where a stress test takes both).
//
// Knobs: holds of 5.5 s; 1 cycle x scale; 1 writer and 2 retirers (x sqrt(scale)).
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

constexpr auto kHold = 5500ms;
constexpr std::uint64_t kSleepyOneIn = 4096;
constexpr auto kSleep = 10ms;

struct held_object : payload, sut::hazard_pointer_obj_base<held_object, poison<held_object>> {
  explicit held_object(std::uint64_t serial) : payload(serial) {}
};

struct garbage;
struct sleepy_poison {  // poisons, after a sleep when the object was drawn sleepy
  void operator()(garbage* p) const noexcept;
};
struct garbage : payload, sut::hazard_pointer_obj_base<garbage, sleepy_poison> {
  explicit garbage(bool sleepy) : payload(sleepy ? 1 : 0) {}
};
void sleepy_poison::operator()(garbage* p) const noexcept {
  if (p->intact() && p->value() == 1) std::this_thread::sleep_for(kSleep);
  poison<garbage>{}(p);
}

}  // namespace

TEST_CASE("saferecl.hp.general/6 H8 HX-11: an object protected for seconds survives passes that run meanwhile on several threads" *
          doctest::test_suite("core.concurrency")) {
  const std::uint64_t cycles = scaled(1);
  const std::size_t retirers = threads(2);
  print_config("HX-11", {{"hold_ms", str(kHold.count())}, {"cycles", str(cycles)},
                         {"retirers", str(retirers)}, {"sleepy_one_in", str(kSleepyOneIn)},
                         {"sleep_ms", str(kSleep.count())}});

  std::atomic<held_object*> slot{new held_object(0)};
  std::atomic<std::uint64_t> holding{0};
  torture t("HX-11");
  progress held, cycles_done, writes;
  std::vector<progress> retires(retirers);
  t.watch("holder", held);
  t.watch("writer", writes);
  for (std::size_t i = 0; i < retirers; ++i) t.watch("retirer " + str(i), retires[i]);

  thread_group group;
  group.spawn([&] {  // the holder
    segment seg("holder", 0, "serial", "ms held");
    sut::hazard_pointer h = sut::make_hazard_pointer();
    for (std::uint64_t k = 1; k <= cycles && t.running(); ++k) {
      held_object* p = h.protect(slot);
      const std::uint64_t serial = p->value();
      holding.store(k, std::memory_order_release);
      const auto start = clock::now();
      for (std::int64_t ms = 0; clock::now() - start < kHold; ++ms) {
        std::this_thread::sleep_for(1ms);
        held.bump();
        if (!p->intact() || p->value() != serial) {
          seg.record({k, serial, {}, ms});
          t.fail(seg, "the protected object was reclaimed while its protection was held");
          break;
        }
      }
      h.reset_protection();
      cycles_done.bump();
    }
    t.stop();  // the run is as long as the holds
  });
  group.spawn([&] {  // the writer: retires each held object once it is held, then garbage
    rng r(1);
    std::uint64_t replaced = 0;
    while (t.running()) {
      if (holding.load(std::memory_order_acquire) > replaced) {
        slot.exchange(new held_object(++replaced), std::memory_order_acq_rel)->retire();
      }
      (new garbage(r.one_in(kSleepyOneIn)))->retire();
      writes.bump();
    }
  });
  for (std::size_t i = 0; i < retirers; ++i)
    group.spawn([&, i] {
      rng r(100 + i);
      while (t.running()) {
        (new garbage(r.one_in(kSleepyOneIn)))->retire();
        retires[i].bump();
      }
    });

  // The holder ends the run; the limit only bounds a run that hangs.
  t.run(cycles * (kHold + 1s) + 30s);
  t.join(group);
  t.settle("retiring the last object", [&] { slot.exchange(nullptr)->retire(); });
  std::uint64_t retired = writes.get();
  for (const auto& n : retires) retired += n.get();
  t.summary({{"cycles", str(cycles_done.get())}, {"garbage_retired", str(retired)},
             {"garbage_reclaimed", str(ledger<garbage>::reclaimed.load())},
             {"held_reclaimed", str(ledger<held_object>::reclaimed.load())}});
  CHECK(t.passed());
  CHECK(cycles_done.get() == cycles);
  CHECK(ledger<held_object>::repeated.load() == 0);
  CHECK(ledger<garbage>::repeated.load() == 0);
}
