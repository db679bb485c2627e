// <hazard_pointer> torture HX-09: thread churn and read-exit.
// REQUIRES: hazard-pointer
//
// Scenario: writers keep replacing the current object and retiring the old one, while
//  - a wave spawner starts waves of 8 threads; each makes 1-12 holders (more than a
//    per-thread cache usually keeps), protects the current object with every one, checks
//    it, retires 200 objects of a separate `watched` type -- too few for a pass of its
//    own at any known threshold, so they are still pending when the thread exits --
//    checks its objects again and exits; one thread in four also leaves a thread_local
//    holder protecting an object, destroyed during its teardown;
//  - a read-exit spawner starts one thread at a time that protects and checks the
//    current object once and exits at once.
//
// Invariants ([saferecl.hp.general]/6, H6, H7, H38): no thread ever sees a protected
// object poisoned; nothing is reclaimed twice; and, in aggregate (H9), after every
// churned thread has exited and the main thread has retired kDefaultChurn more objects,
// some of the watched objects have been reclaimed: what exited threads retired is not lost.
//
// Knobs: 0.8 s quick, 2 s x scale above it (suite/README.md, "Stress durations"); 2 writers
// and waves of 8 (x sqrt(scale)); 200 watched retires per wave thread.
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

#include <thread>
#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct object : payload, sut::hazard_pointer_obj_base<object, poison<object>> {
  explicit object(std::uint64_t serial) : payload(serial) {}
};
struct watched : payload, sut::hazard_pointer_obj_base<watched, poison<watched>> {
  watched() : payload(1) {}
};

constexpr std::uint64_t kWatchedPerThread = 200;
constexpr std::uint64_t kFarAboveAnyBound = 20'000;

}  // namespace

TEST_CASE("saferecl.hp.general/6 H38 HX-09: protection and reclamation survive thread churn" *
          doctest::test_suite("core.stress")) {
  const std::size_t writers = threads(2), wave = threads(8);
  const auto duration = stress_duration(800ms, 2000ms);
  print_config("HX-09", {{"writers", str(writers)}, {"wave", str(wave)},
                         {"watched_per_thread", str(kWatchedPerThread)},
                         {"duration_ms", str(duration.count())}});

  std::atomic<object*> current{new object(0)};
  torture t("HX-09");
  std::vector<progress> writes(writers);
  progress waves, read_exits, thread_locals;
  for (std::size_t i = 0; i < writers; ++i) t.watch("writer " + str(i), writes[i]);
  t.watch("wave spawner", waves);
  t.watch("read-exit spawner", read_exits);
  std::atomic<std::uint64_t> watched_retired{0};

  // Protects the current object with `h`, checks it; false if it was poisoned.
  auto protect_and_check = [&](sut::hazard_pointer& h, segment& seg, std::uint64_t it) {
    object* p = h.protect(current);
    const bool ok = p->intact();
    seg.record({it, p->value(), {}, ok});
    if (!ok) t.fail(seg, "a freshly protected object was poisoned");
    return p;
  };

  thread_group group;
  for (std::size_t w = 0; w < writers; ++w)
    group.spawn([&, w] {
      for (std::uint64_t n = 1; t.running(); ++n) {
        current.exchange(new object(n * 64 + w), std::memory_order_acq_rel)->retire();
        writes[w].bump();
      }
    });
  group.spawn([&] {  // waves of short-lived threads
    for (std::uint64_t round = 0; t.running(); ++round) {
      std::vector<std::thread> members;
      for (std::size_t m = 0; m < wave; ++m) {
        const std::uint64_t stream = 1000 + round * wave + m;
        members.emplace_back([&, stream] {
          rng r(stream);
          segment seg("wave thread " + str(stream), stream, "serial", "intact");
          std::vector<sut::hazard_pointer> holders(1 + r.below(12));
          std::vector<std::pair<object*, std::uint64_t>> seen;
          for (auto& h : holders) {
            h = sut::make_hazard_pointer();
            object* p = protect_and_check(h, seg, seen.size());
            seen.emplace_back(p, p->value());
          }
          for (std::uint64_t k = 0; k < kWatchedPerThread; ++k) (new watched)->retire();
          watched_retired.fetch_add(kWatchedPerThread, std::memory_order_relaxed);
          for (auto [p, serial] : seen)
            if (!p->intact() || p->value() != serial)
              t.fail(seg, "an object protected by this thread was poisoned");
          if (r.one_in(4)) {  // destroyed during this thread's teardown
            thread_local sut::hazard_pointer at_exit;
            at_exit = sut::make_hazard_pointer();
            protect_and_check(at_exit, seg, seen.size());
            thread_locals.bump();
          }
        });
      }
      for (auto& m : members) m.join();
      waves.bump();
    }
  });
  group.spawn([&] {  // read-exit: one protection per thread lifetime
    for (std::uint64_t n = 0; t.running(); ++n)
      std::thread([&, n] {
        segment seg("read-exit thread " + str(n), n, "serial", "intact");
        sut::hazard_pointer h = sut::make_hazard_pointer();
        protect_and_check(h, seg, n);
        read_exits.bump();
      }).join();
  });

  t.run(duration);
  t.join(group);
  t.settle("retiring the last object", [&] { current.exchange(nullptr)->retire(); });
  t.settle("churn on the main thread", [] { churn(); });  // after every churned thread exited
  const std::uint64_t retired = watched_retired.load(), reclaimed = ledger<watched>::reclaimed.load();
  std::uint64_t total_writes = 0;
  for (auto& w : writes) total_writes += w.get();
  t.summary({{"replacements", str(total_writes)}, {"waves", str(waves.get())},
             {"wave_threads", str(waves.get() * wave)}, {"read_exit_threads", str(read_exits.get())},
             {"thread_local_holders", str(thread_locals.get())},
             {"watched_retired", str(retired)}, {"watched_reclaimed", str(reclaimed)}});
  CHECK(t.passed());
  CHECK(ledger<object>::repeated.load() == 0);
  CHECK(ledger<watched>::repeated.load() == 0);
  CHECK(reclaimed <= retired);
  if (retired >= kFarAboveAnyBound)
    CHECK_MESSAGE(reclaimed > 0, "none of the ", retired,
                  " objects retired by exited threads was reclaimed");
  else
    MESSAGE("only ", retired, " watched objects retired: the aggregate check needs ",
            kFarAboveAnyBound);
}
