// <hazard_pointer> torture HX-01: readers and writers on a poisoned payload.
// REQUIRES: hazard-pointer
//
// Scenario: writers replace the objects of a few shared slots as fast as they can
// (exchange, then retire the old object); readers protect a random slot's object -- with
// protect(), with a fresh holder, or by loading a guess, waiting, and validating it with a
// try_protect() retry loop (a stale guess must be refused) -- check it, wait a
// random delay, check it again, and end the epoch (reset_protection, or by re-protecting).
// The object type has its hazard_pointer_obj_base at a non-zero offset.
//
// Invariant ([saferecl.hp.general]/6, H6, H8): an object read from its slot by a protect or
// a successful try_protect is not reclaimed while that epoch lasts, so a reader never sees
// the poison of a reclaimed payload (b != ~a) nor a changed serial; no object is reclaimed
// twice. TSan sees a premature reclamation as a race on the payload, ASan (once the
// quarantine lets go of the memory) as a use after free.
//
// Knobs: 2 s x scale; 6 readers, 2 writers (x sqrt(scale): more threads than cores, so
// that readers are preempted anywhere, between a load and its validation too); 4 slots;
// half of the holds have no delay, the others one from the rcutorture mix (mostly short
// spins, sometimes a yield or a sleep of up to 1 ms).
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

#include <array>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct node : payload, sut::hazard_pointer_obj_base<node, poison<node>> {
  explicit node(std::uint64_t serial) : payload(serial) {}
};

constexpr std::size_t kSlots = 4;

}  // namespace

TEST_CASE("saferecl.hp.general/6 H8 HX-01: readers never see a payload reclaimed under their protection" *
          doctest::test_suite("core.stress")) {
  const std::size_t readers = threads(6), writers = threads(2);
  const auto duration = scaled(2000ms);
  print_config("HX-01", {{"readers", str(readers)}, {"writers", str(writers)},
                         {"slots", str(kSlots)}, {"duration_ms", str(duration.count())}});

  std::array<std::atomic<node*>, kSlots> slots;
  for (std::size_t i = 0; i < kSlots; ++i) slots[i].store(new node(i), std::memory_order_relaxed);

  torture t("HX-01");
  std::vector<progress> reads(readers), writes(writers);
  progress overlapped;  // holds during which some object of this type was reclaimed
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), reads[i]);
  for (std::size_t i = 0; i < writers; ++i) t.watch("writer " + str(i), writes[i]);

  thread_group group;
  for (std::size_t w = 0; w < writers; ++w)
    group.spawn([&, w] {
      rng r(100 + w);
      for (std::uint64_t n = 1; t.running(); ++n) {
        node* old = slots[r.below(kSlots)].exchange(new node(n * 64 + w), std::memory_order_acq_rel);
        old->retire();
        writes[w].bump();
      }
    });
  for (std::size_t i = 0; i < readers; ++i)
    group.spawn([&, i] {
      rng r(i);
      segment seg("reader " + str(i), i, "serial", "intact");
      sut::hazard_pointer h = sut::make_hazard_pointer();
      for (std::uint64_t it = 0; t.running(); ++it) {
        const std::atomic<node*>& src = slots[r.below(kSlots)];
        node* p = nullptr;
        switch (r.below(4)) {
          case 0:  // a fresh holder; the old one's epoch ends with its destruction
            h = sut::make_hazard_pointer();
            [[fallthrough]];
          case 1:
            p = h.protect(src);
            break;
          default:  // a possibly stale guess, validated by try_protect after a delay
            p = src.load(std::memory_order_relaxed);
            draw(r)();
            while (!h.try_protect(p, src)) {
            }
        }
        const std::uint64_t serial = p->value();
        bool ok = p->intact();
        const std::uint64_t before = ledger<node>::reclaimed.load(std::memory_order_relaxed);
        const delay d = r.one_in(2) ? delay{} : draw(r);
        d();
        ok = ok && p->intact() && p->value() == serial;
        if (ledger<node>::reclaimed.load(std::memory_order_relaxed) != before) overlapped.bump();
        seg.record({it, serial, d, ok});
        if (!ok) t.fail(seg, "a reader saw its protected payload poisoned or changed");
        if (r.one_in(2)) h.reset_protection();
        reads[i].bump();
      }
    });

  t.run(duration);
  t.join(group);
  std::uint64_t retired = kSlots;
  t.settle("retiring the last objects", [&] {
    for (auto& s : slots) s.exchange(nullptr)->retire();
  });
  for (auto& w : writes) retired += w.get();
  std::uint64_t total_reads = 0;
  for (auto& r : reads) total_reads += r.get();

  t.summary({{"reads", str(total_reads)}, {"retired", str(retired)},
             {"reclaimed", str(ledger<node>::reclaimed.load())},
             {"reads_overlapping_a_reclamation", str(overlapped.get())}});
  CHECK(t.passed());
  CHECK(ledger<node>::repeated.load() == 0);
  CHECK(ledger<node>::reclaimed.load() <= retired);
}
