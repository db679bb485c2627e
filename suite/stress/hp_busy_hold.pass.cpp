// <hazard_pointer> torture HX-12: readers that compute on their protected object while the
// writers unlink, retire and reclaim.
// REQUIRES: hazard-pointer
//
// Scenario: writers replace the object of one shared slot as fast as they can (exchange, then
// retire the old one), so that an object is unlinked a moment after a reader protects it and
// every writer's reclamation pass comes while some reader holds a fresh protection. Readers
// protect the slot's object (protect, or try_protect of a possibly stale guess) and then
// compute on it: a random number (up to 200,000) of plain re-reads of its payload, with no
// atomic operation and no system call in between, then end the epoch. This is the shape
// that a missing StoreLoad fence on the reader's side needs: the reader's hazard store may
// still wait in its store buffer (the tso tier keeps it there while the reader computes), and
// a pass that scans then, with nothing draining that buffer, reclaims the object under it.
//
// Invariant ([saferecl.hp.general]/6, H8): an object read from its slot by a protect or a
// successful try_protect is not reclaimed while that epoch lasts, so no re-read sees the
// poison of a reclaimed payload or a changed serial.
//
// The hold must outlast the time from an unlink to the free: a pass reclaims a batch only
// once a fence begun after its stamp has run, a pass or two after the retire. Holds of up to
// 20,000 re-reads (about 0.5 ms) killed MH-90 in 3 of 8 runs, each within the first 0.3 s,
// before the batches reached their steady pace; up to 200,000 killed it in 6 of 6.
//
// Knobs: 2 s x scale; 2 readers, 2 writers (x sqrt(scale)); one slot.
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct node : payload, sut::hazard_pointer_obj_base<node, poison<node>> {
  explicit node(std::uint64_t serial) : payload(serial) {}
};

constexpr std::uint64_t kMaxRereads = 200'000;

// Plain re-reads of the payload; the compiler barrier makes each one a load.
bool stays_intact(const node* p, std::uint64_t serial, std::uint64_t rereads) noexcept {
  bool ok = true;
  for (std::uint64_t i = 0; i < rereads; ++i) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    ok = ok && p->intact() && p->value() == serial;
  }
  return ok;
}

}  // namespace

TEST_CASE("saferecl.hp.general/6 H8 HX-12: a reader computing on its protected object never sees it reclaimed" *
          doctest::test_suite("core.stress")) {
  const std::size_t readers = threads(2), writers = threads(2);
  const auto duration = scaled(2000ms);
  print_config("HX-12", {{"readers", str(readers)}, {"writers", str(writers)},
                         {"max_rereads", str(kMaxRereads)}, {"duration_ms", str(duration.count())}});

  std::atomic<node*> slot{new node(0)};
  torture t("HX-12");
  std::vector<progress> reads(readers), writes(writers);
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), reads[i]);
  for (std::size_t i = 0; i < writers; ++i) t.watch("writer " + str(i), writes[i]);

  thread_group group;
  for (std::size_t w = 0; w < writers; ++w)
    group.spawn([&, w] {
      for (std::uint64_t n = 1; t.running(); ++n) {
        slot.exchange(new node(n * 64 + w), std::memory_order_acq_rel)->retire();
        writes[w].bump();
      }
    });
  for (std::size_t i = 0; i < readers; ++i)
    group.spawn([&, i] {
      rng r(i);
      segment seg("reader " + str(i), i, "serial", "intact");
      sut::hazard_pointer h = sut::make_hazard_pointer();
      for (std::uint64_t it = 0; t.running(); ++it) {
        node* p = nullptr;
        if (r.one_in(2)) {
          p = h.protect(slot);
        } else {
          p = slot.load(std::memory_order_relaxed);
          while (!h.try_protect(p, slot)) {
          }
        }
        const std::uint64_t serial = p->value();
        const bool ok = p->intact() && stays_intact(p, serial, r.below(kMaxRereads + 1));
        seg.record({it, serial, delay{}, ok});
        if (!ok) t.fail(seg, "a reader saw its protected payload poisoned or changed");
        h.reset_protection();
        reads[i].bump();
      }
    });

  t.run(duration);
  t.join(group);
  std::uint64_t retired = 1;
  t.settle("retiring the last object", [&] { slot.exchange(nullptr)->retire(); });
  for (auto& w : writes) retired += w.get();
  std::uint64_t total_reads = 0;
  for (auto& r : reads) total_reads += r.get();

  t.summary({{"reads", str(total_reads)}, {"retired", str(retired)},
             {"reclaimed", str(ledger<node>::reclaimed.load())}});
  CHECK(t.passed());
  CHECK(ledger<node>::repeated.load() == 0);
  CHECK(ledger<node>::reclaimed.load() <= retired);
}
