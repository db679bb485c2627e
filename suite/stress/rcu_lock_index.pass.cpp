// <rcu> torture RX-04: rcu_synchronize waits for every region it saw begin.
// REQUIRES: rcu
//
// Scenario: each reader j numbers its regions i = 1, 2, ...; right after lock() it stores
// lock_idx[j] = i, then waits a random delay, stores unlock_idx[j] = i just before
// unlock(); some regions open with try_lock, some contain a nested lock/unlock pair
// before the delay. Synchronizers snapshot every
// lock_idx[j], call rcu_synchronize(), and then read every unlock_idx[j].
//
// Invariant ([saferecl.rcu.domain.func]/2-3, R29, R30): for every j, unlock_idx[j] is at
// least the snapshot of lock_idx[j] taken before the call. Relaxed accesses suffice:
// reading a value stored inside region i rules out that the synchronize strongly happens
// before that region's lock, so the region's unlock -- and the store sequenced before it
// -- happens before the synchronize returns, and coherence makes the later read see it.
//
// Knobs: 0.6 s quick, 1.5 s x scale above it (suite/README.md, "Stress durations"); 4 readers,
// 2 synchronizers (x sqrt(scale)).
#include "support/stress_harness.hpp"
#include "support/test.hpp"

#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct alignas(64) reader_indices {
  std::atomic<std::uint64_t> locked{0};
  std::atomic<std::uint64_t> unlocked{0};
};

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/2 R29 RX-04: rcu_synchronize waits for every region it saw begin" *
          doctest::test_suite("core.stress")) {
  const std::size_t readers = threads(4), synchronizers = threads(2);
  const auto duration = stress_duration(600ms, 1500ms);
  print_config("RX-04", {{"readers", str(readers)}, {"synchronizers", str(synchronizers)},
                         {"duration_ms", str(duration.count())}});

  std::vector<reader_indices> idx(readers);
  torture t("RX-04");
  std::vector<progress> regions(readers), syncs(synchronizers);
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), regions[i]);
  for (std::size_t i = 0; i < synchronizers; ++i) t.watch("synchronizer " + str(i), syncs[i]);
  progress waited;  // synchronizes that saw at least one reader inside a region

  thread_group group;
  for (std::size_t j = 0; j < readers; ++j)
    group.spawn([&, j] {
      rng r(j);
      sut::rcu_domain& dom = sut::rcu_default_domain();
      for (std::uint64_t i = 1; t.running(); ++i) {
        const std::uint64_t form = r.below(4);
        const delay d = draw(r);
        if (form == 0) {
          if (!dom.try_lock()) t.fail("rcu_domain::try_lock() returned false");
        } else {
          dom.lock();
        }
        idx[j].locked.store(i, std::memory_order_relaxed);
        if (form == 1) {  // a nested pair: its unlock must not end the region
          dom.lock();
          dom.unlock();
        }
        d();
        idx[j].unlocked.store(i, std::memory_order_relaxed);
        dom.unlock();
        regions[j].bump();
      }
    });
  for (std::size_t s = 0; s < synchronizers; ++s)
    group.spawn([&, s] {
      segment seg("synchronizer " + str(s), 100 + s, "reader", "snapshot - unlock index");
      std::vector<std::uint64_t> snap(readers);
      for (std::uint64_t it = 0; t.running(); ++it) {
        bool inside = false;
        for (std::size_t j = 0; j < readers; ++j) {
          snap[j] = idx[j].locked.load(std::memory_order_relaxed);
          inside = inside || idx[j].unlocked.load(std::memory_order_relaxed) < snap[j];
        }
        sut::rcu_synchronize();
        for (std::size_t j = 0; j < readers; ++j) {
          const std::uint64_t after = idx[j].unlocked.load(std::memory_order_relaxed);
          if (after < snap[j]) {
            seg.record({it, j, {}, static_cast<std::int64_t>(snap[j] - after)});
            t.fail(seg, "rcu_synchronize returned before a region it saw begin had ended");
          }
        }
        if (inside) waited.bump();
        syncs[s].bump();
      }
    });

  t.run(duration);
  t.join(group);
  std::uint64_t total_regions = 0, total_syncs = 0;
  for (auto& r : regions) total_regions += r.get();
  for (auto& s : syncs) total_syncs += s.get();
  t.summary({{"regions", str(total_regions)}, {"synchronizes", str(total_syncs)},
             {"synchronizes_that_saw_a_reader_inside", str(waited.get())}});
  CHECK(t.passed());
}
