// <rcu> torture RX-02: an array of slots whose reclaimed cells are poisoned.
// REQUIRES: rcu
//
// Scenario: 1000 slots each point to a cell holding 0. Readers sum every slot inside one
// region, wait a random delay, and sum the same cells again (without reloading the slots,
// so that each cell is held across the delay). Updaters exchange a random slot's cell for a fresh
// one and get rid of the old cell in one of three ways, at random: its own retire()
// (rcu_obj_base, the base at offset 0 of a cell whose payload follows), rcu_retire() with
// the poisoning deleter, or rcu_synchronize() followed by running the deleter directly. The
// deleter overwrites the cell's value with a non-zero poison and quarantines the memory.
//
// Invariant ([saferecl.rcu.general]/5, R3, R29, R16, R38): a cell a reader loaded in its
// region is not reclaimed before the region ends, so every sum is exactly 0; after the
// final rcu_barrier every retired cell was reclaimed exactly once (R5, R33).
//
// Knobs: 0.8 s quick, 2 s x scale above it (suite/README.md, "Stress durations"); 4 readers, 2
// updaters (x sqrt(scale)); 1000 slots.
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

#include <array>
#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct cell : sut::rcu_obj_base<cell, poison<cell>>, payload {
  cell() : payload(0) {}
};

constexpr std::size_t kSlots = 1000;

}  // namespace

TEST_CASE("saferecl.rcu.general/5 R3 RX-02: readers never sum a poisoned slot" *
          doctest::test_suite("core.stress")) {
  const std::size_t readers = threads(4), updaters = threads(2);
  const auto duration = stress_duration(800ms, 2000ms);
  print_config("RX-02", {{"readers", str(readers)}, {"updaters", str(updaters)},
                         {"slots", str(kSlots)}, {"duration_ms", str(duration.count())}});

  std::vector<std::atomic<cell*>> slots(kSlots);
  for (auto& s : slots) s.store(new cell, std::memory_order_relaxed);
  const std::uint64_t reclaimed_before = ledger<cell>::reclaimed.load();

  torture t("RX-02");
  std::vector<progress> sums(readers), updates(updaters);
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), sums[i]);
  for (std::size_t i = 0; i < updaters; ++i) t.watch("updater " + str(i), updates[i]);
  std::vector<std::array<std::uint64_t, 3>> modes(updaters);

  thread_group group;
  for (std::size_t i = 0; i < readers; ++i)
    group.spawn([&, i] {
      rng r(i);
      segment seg("reader " + str(i), i, "first non-zero slot", "its value");
      sut::rcu_domain& dom = sut::rcu_default_domain();
      std::vector<const cell*> seen(kSlots);
      for (std::uint64_t it = 0; t.running(); ++it) {
        const delay d = draw(r);
        std::uint64_t sum = 0, first_bad = kSlots, bad_value = 0;
        auto add = [&](std::size_t k) {
          const std::uint64_t v = seen[k]->value();
          if (v != 0 && first_bad == kSlots) {
            first_bad = k;
            bad_value = v;
          }
          sum += v;
        };
        dom.lock();
        for (std::size_t k = 0; k < kSlots; ++k) {
          seen[k] = slots[k].load(std::memory_order_acquire);
          add(k);
        }
        d();
        for (std::size_t k = 0; k < kSlots; ++k) add(k);  // the same cells, after the delay
        dom.unlock();
        seg.record({it, first_bad, d, static_cast<std::int64_t>(bad_value)});
        if (sum != 0) t.fail(seg, "a reader summed a poisoned (reclaimed) cell");
        sums[i].bump();
      }
    });
  for (std::size_t u = 0; u < updaters; ++u)
    group.spawn([&, u] {
      rng r(100 + u);
      while (t.running()) {
        cell* old = slots[r.below(kSlots)].exchange(new cell, std::memory_order_acq_rel);
        const std::uint64_t mode = r.below(3);
        ++modes[u][mode];
        if (mode == 0) {
          old->retire();
        } else if (mode == 1) {
          sut::rcu_retire(old, poison<cell>{});
        } else {
          sut::rcu_synchronize();
          poison<cell>{}(old);
        }
        updates[u].bump();
      }
    });

  t.run(duration);
  t.join(group);
  std::uint64_t retired = kSlots;
  t.settle("retiring the last objects", [&] {
    for (auto& s : slots) s.exchange(nullptr)->retire();
  });
  std::array<std::uint64_t, 3> by_mode{};
  for (auto& m : modes)
    for (std::size_t k = 0; k < 3; ++k) by_mode[k] += m[k];
  for (auto n : by_mode) retired += n;
  t.settle("final rcu_barrier", [] { sut::rcu_barrier(); });
  const std::uint64_t reclaimed = ledger<cell>::reclaimed.load() - reclaimed_before;
  std::uint64_t total_sums = 0;
  for (auto& s : sums) total_sums += s.get();
  t.summary({{"sums", str(total_sums)}, {"obj_base_retires", str(by_mode[0])},
             {"rcu_retires", str(by_mode[1])}, {"synchronize_then_delete", str(by_mode[2])},
             {"reclaimed", str(reclaimed)}});
  CHECK(t.passed());
  CHECK(reclaimed == retired);
  CHECK(ledger<cell>::repeated.load() == 0);
}
