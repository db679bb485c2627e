// <rcu> torture RX-07: every rcu_barrier covers every callback posted before it.
// REQUIRES: rcu
//
// Scenario (rcutorture's barrier torture): in each phase every poster schedules exactly
// one callback -- rcu_retire() or an object's own retire(), sometimes from inside a region
// of its own -- and meets the coordinator at a barrier; the coordinator then waits 0-200 us,
// calls rcu_barrier() and counts the deleters run so far; then the next phase starts. Each
// deleter spins for a random while before it counts, so that deleters are often still
// running (on a reader's unlock, on a poster's retire, on the coordinator) when a barrier
// is called. Readers keep regions with rcutorture delays going all the time, and a
// synchronizer loops rcu_synchronize(), so that callbacks also become ready, and get run
// by others, between the coordinator's barriers.
//
// Invariant ([saferecl.rcu.domain.func]/4-5, R33, R34, R5): after the coordinator's
// rcu_barrier in phase k exactly k x posters deleters have run -- fewer means the barrier
// returned before a callback that was posted before it had finished, more means some
// callback ran twice.
//
// Knobs: 0.8 s quick, 2 s x scale above it (suite/README.md, "Stress durations"); 3 posters
// and 2 readers (x sqrt(scale)), 1 synchronizer; deleter spins 0-20000.
#include "support/stress_harness.hpp"
#include "support/test.hpp"

#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

std::atomic<std::uint64_t> g_invoked{0};  // namespace scope: deleters outlive blocks

struct slow_count;
struct callback;
struct slow_count {
  std::uint32_t spins = 0;
  void operator()(callback* p) const noexcept;
};
struct callback : sut::rcu_obj_base<callback, slow_count> {
  callback() = default;
};
void slow_count::operator()(callback* p) const noexcept {
  delay{delay::kind::spin, spins}();
  g_invoked.fetch_add(1, std::memory_order_acq_rel);
  delete p;
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/4 R33 RX-07: each rcu_barrier covers every callback posted before it" *
          doctest::test_suite("core.stress")) {
  const std::size_t posters = threads(3), readers = threads(2);
  const auto duration = stress_duration(800ms, 2000ms);
  print_config("RX-07", {{"posters", str(posters)}, {"readers", str(readers)}, {"synchronizers", "1"},
                         {"deleter_spins", "0-20000"}, {"duration_ms", str(duration.count())}});

  const std::uint64_t invoked_before = g_invoked.load();
  torture t("RX-07");
  progress phases, syncs;
  std::vector<progress> regions(readers);
  t.watch("phases", phases);
  t.watch("synchronizer", syncs);
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), regions[i]);
  atomic_barrier sync(posters + 1);
  bool last_phase = false;  // written by the coordinator before the phase-start barrier

  thread_group group;
  for (std::size_t p = 0; p < posters; ++p)
    group.spawn([&, p] {
      rng r(p);
      sut::rcu_domain& dom = sut::rcu_default_domain();
      for (;;) {
        sync.arrive_and_wait();  // phase start
        if (last_phase) break;
        const slow_count d{static_cast<std::uint32_t>(r.below(20001))};
        const bool in_region = r.one_in(4);
        if (in_region) dom.lock();
        if (r.one_in(2))
          (new callback)->retire(d);
        else
          sut::rcu_retire(new callback, d);
        if (in_region) dom.unlock();
        sync.arrive_and_wait();  // posted
      }
    });
  for (std::size_t i = 0; i < readers; ++i)
    group.spawn([&, i] {
      rng r(100 + i);
      sut::rcu_domain& dom = sut::rcu_default_domain();
      while (t.running()) {
        const delay d = draw(r);
        dom.lock();
        d();
        dom.unlock();
        regions[i].bump();
      }
    });
  group.spawn([&] {  // the synchronizer: makes callbacks ready outside the coordinator's barrier
    rng r(200);
    while (t.running()) {
      sut::rcu_synchronize();
      syncs.bump();
      std::this_thread::sleep_for(std::chrono::microseconds(r.below(100)));
    }
  });
  group.spawn([&] {  // the coordinator
    rng r(300);
    segment seg("coordinator", 300, "expected", "invoked - expected");
    for (std::uint64_t phase = 1;; ++phase) {
      last_phase = !t.running();
      sync.arrive_and_wait();
      if (last_phase) break;
      sync.arrive_and_wait();
      const delay d{delay::kind::sleep, static_cast<std::uint32_t>(r.below(200))};
      d();  // meanwhile a grace period may make the callbacks ready, and others run them
      sut::rcu_barrier();
      const std::uint64_t invoked = g_invoked.load(std::memory_order_acquire) - invoked_before;
      const std::uint64_t expected = phase * posters;
      seg.record({phase, expected, d, static_cast<std::int64_t>(invoked - expected)});
      if (invoked != expected)
        t.fail(seg, invoked < expected ? "rcu_barrier returned before a callback posted before it had run"
                                       : "a callback ran more than once");
      phases.bump();
    }
  });

  t.run(duration);
  t.join(group);
  t.settle("final rcu_barrier", [] { sut::rcu_barrier(); });
  std::uint64_t total_regions = 0;
  for (auto& r : regions) total_regions += r.get();
  t.summary({{"phases", str(phases.get())}, {"callbacks", str(phases.get() * posters)},
             {"invoked", str(g_invoked.load() - invoked_before)}, {"regions", str(total_regions)},
             {"synchronizes", str(syncs.get())}});
  CHECK(t.passed());
}
