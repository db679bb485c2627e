// <hazard_pointer> torture HX-10: small scenarios, run in rounds, perturbed by seeded delays.
// REQUIRES: hazard-pointer
//
// Scenario: two readers and a writer meet at a barrier before every round; the barrier's
// completion draws the round's scenario:
//  - single: reader 0 protects the object of slot 0, checks it, writes a plain field of it
//    and ends the epoch; the writer replaces slot 0 and retires the old object;
//  - pair:   as single, with reader 1 validating the same slot by a try_protect loop;
//  - multi:  reader 0 protects the objects of slots 0-2 with three holders; the writer
//    replaces all three, in a random order.
// After retiring, the writer retires 100 garbage objects, so that its reclamation passes
// fall inside rounds. Between any two steps each thread takes a seeded perturbation:
// nothing, a spin, a yield, or a 100-300 us sleep (the DEBUG_YIELD idea of liburcu), so
// protect, validation, retire and the pass's scan meet in ever different orders.
//
// Invariants ([saferecl.hp.general]/6, H7, H8, HS-17): what a reader protected stays
// intact for the whole epoch; the reader's plain write before ending its epoch happens
// before the deleter, which overwrites the same field (a race for TSan otherwise).
// A failure prints the round, its scenario and the reader's perturbations.
//
// Knobs: 2 s x scale; 2 readers and 1 writer (fixed: the scenarios are small on purpose);
// 100 garbage retires per round.
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

#include <array>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct node;
struct scrub {  // the deleter writes the field the reader wrote, then poisons
  void operator()(node* p) const noexcept;
};
struct node : payload, sut::hazard_pointer_obj_base<node, scrub> {
  explicit node(std::uint64_t serial) : payload(serial) {}
  std::uint64_t scratch = 0;  // written by a reader while protected
};
void scrub::operator()(node* p) const noexcept {
  p->scratch = kPoison;
  poison<node>{}(p);
}
struct garbage : sut::hazard_pointer_obj_base<garbage> {
  garbage() = default;
};

enum scenario : std::uint32_t { single, pair, multi, kScenarios };
constexpr const char* kScenarioNames[] = {"single", "pair", "multi"};
constexpr std::size_t kSlots = 3;
constexpr std::uint64_t kGarbagePerRound = 100;

}  // namespace

TEST_CASE("saferecl.hp.general/6 H8 HX-10: perturbed small scenarios keep protected objects alive" *
          doctest::test_suite("core.stress")) {
  const auto duration = scaled(2000ms);
  print_config("HX-10", {{"readers", "2"}, {"writers", "1"},
                         {"garbage_per_round", str(kGarbagePerRound)},
                         {"duration_ms", str(duration.count())}});

  std::array<std::atomic<node*>, kSlots> slots;
  for (std::size_t i = 0; i < kSlots; ++i) slots[i].store(new node(i), std::memory_order_relaxed);
  torture t("HX-10");
  progress rounds;
  t.watch("rounds", rounds);
  std::array<std::uint64_t, kScenarios> per_scenario{};

  rng chooser(900);
  scenario current = single;
  bool done = false;
  atomic_barrier sync(3, [&]() noexcept {
    ++per_scenario[current];
    rounds.bump();
    current = static_cast<scenario>(chooser.below(kScenarios));
    done = !t.running();
  });
  const delay_mix mix{.long_sleep_one_in = 0, .sleep_one_in = 16, .yield_one_in = 4,
                      .max_spin = 2000};

  thread_group group;
  for (std::size_t reader = 0; reader < 2; ++reader)
    group.spawn([&, reader] {
      rng r(reader);
      segment seg("reader " + str(reader), reader, "round", "scenario");
      std::array<sut::hazard_pointer, kSlots> h;
      for (auto& x : h) x = sut::make_hazard_pointer();
      std::uint64_t round = 0;
      auto step = [&] {
        const delay d = draw(r, mix);
        seg.record({round, 0, d, current});
        d();
      };
      auto check = [&](node* p, std::uint64_t serial, const char* when) {
        seg.record({round, serial, {}, current});
        if (!p->intact() || p->value() != serial)
          t.fail(seg, std::string("scenario ") + kScenarioNames[current] + ": the object was poisoned " + when);
      };
      for (;; ++round) {
        sync.arrive_and_wait();
        if (done) break;
        if (current == single || (current == pair && reader == 0)) {
          step();
          node* p = h[0].protect(slots[0]);
          const std::uint64_t serial = p->value();
          step();
          check(p, serial, "after protect");
          if (reader == 0) p->scratch = round;
          step();
          check(p, serial, "before the epoch ended");
          h[0].reset_protection();
        } else if (current == pair) {
          step();
          node* p = slots[0].load(std::memory_order_relaxed);
          while (!h[0].try_protect(p, slots[0])) step();
          const std::uint64_t serial = p->value();
          step();
          check(p, serial, "after try_protect succeeded");
          h[0].reset_protection();
        } else if (reader == 0) {  // multi
          std::array<node*, kSlots> p;
          std::array<std::uint64_t, kSlots> serial;
          for (std::size_t k = 0; k < kSlots; ++k) {
            step();
            p[k] = h[k].protect(slots[k]);
            serial[k] = p[k]->value();
          }
          step();
          for (std::size_t k = 0; k < kSlots; ++k) check(p[k], serial[k], "while three were held");
          for (auto& x : h) x.reset_protection();
        }
      }
    });
  group.spawn([&] {  // the writer
    rng r(2);
    std::uint64_t serial = kSlots;
    for (;;) {
      sync.arrive_and_wait();
      if (done) break;
      std::array<std::size_t, kSlots> order{0, 1, 2};
      const std::size_t replaced = current == multi ? kSlots : 1;
      if (current == multi) {
        const std::size_t a = r.below(kSlots), b = r.below(kSlots);
        std::swap(order[a], order[b]);
      }
      for (std::size_t k = 0; k < replaced; ++k) {
        draw(r, mix)();
        node* old = slots[order[k]].exchange(new node(++serial), std::memory_order_acq_rel);
        draw(r, mix)();
        old->retire();
      }
      for (std::uint64_t k = 0; k < kGarbagePerRound; ++k) (new garbage)->retire();
    }
  });

  t.run(duration);
  t.join(group);
  t.settle("retiring the last objects", [&] {
    for (auto& s : slots) s.exchange(nullptr)->retire();
  });
  t.summary({{"rounds", str(rounds.get())}, {"single", str(per_scenario[single])},
             {"pair", str(per_scenario[pair])}, {"multi", str(per_scenario[multi])},
             {"reclaimed", str(ledger<node>::reclaimed.load())}});
  CHECK(t.passed());
  CHECK(ledger<node>::repeated.load() == 0);
}
