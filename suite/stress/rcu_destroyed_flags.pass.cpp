// <rcu> torture RX-03: a store of tracked objects, destroyed flags and rcu_barrier.
// REQUIRES: rcu
//
// Scenario: 16 slots hold tracked objects (an id in the object log, a canary). Readers open
// a region, load a random slot and check that its object has not been reclaimed -- by its
// canary and by the log's destroyed flag -- before and after a random delay. Writers
// exchange a slot's object for a fresh one, retire the old one (its own retire(), or
// rcu_retire with the quarantine deleter; half of the retires happen inside a region of
// the writer's own, R18), and then call rcu_barrier() themselves. Collectors loop
// rcu_barrier() all the time, so barriers overlap and run each other's deleters.
//
// Invariants: a reader never reaches a reclaimed object (R3); when a writer's own
// rcu_barrier returns, the object it retired before has been reclaimed -- even if another
// thread was the one running its deleter (R33, R34); after the final barrier every
// retired object was reclaimed exactly once (R5).
//
// Knobs: 0.8 s quick, 2 s x scale above it (suite/README.md, "Stress durations"); 4 readers, 2
// writers, 2 collectors (x sqrt(scale)); 16 slots.
#include "support/stress_harness.hpp"
#include "support/test.hpp"

#include <array>
#include <mutex>
#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

constexpr std::size_t kSlots = 16;

bool unreclaimed(const rcu_object* p) noexcept { return p->alive() && !objects().reclaimed(p->id); }

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/4 R33 RX-03: a writer's own rcu_barrier reclaims what it retired" *
          doctest::test_suite("core.stress")) {
  const std::size_t readers = threads(4), writers = threads(2), collectors = threads(2);
  const auto duration = stress_duration(800ms, 2000ms);
  print_config("RX-03", {{"readers", str(readers)}, {"writers", str(writers)},
                         {"collectors", str(collectors)}, {"slots", str(kSlots)},
                         {"duration_ms", str(duration.count())}});

  std::array<std::atomic<rcu_object*>, kSlots> slots;
  for (auto& s : slots) s.store(new rcu_object, std::memory_order_relaxed);

  torture t("RX-03");
  std::vector<progress> reads(readers), writes(writers), collections(collectors);
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), reads[i]);
  for (std::size_t i = 0; i < writers; ++i) t.watch("writer " + str(i), writes[i]);
  for (std::size_t i = 0; i < collectors; ++i) t.watch("collector " + str(i), collections[i]);
  std::vector<std::vector<object_log::id_t>> retired(writers);

  thread_group group;
  for (std::size_t i = 0; i < readers; ++i)
    group.spawn([&, i] {
      rng r(i);
      segment seg("reader " + str(i), i, "object id", "unreclaimed");
      sut::rcu_domain& dom = sut::rcu_default_domain();
      for (std::uint64_t it = 0; t.running(); ++it) {
        const delay d = draw(r);
        dom.lock();
        const rcu_object* p = slots[r.below(kSlots)].load(std::memory_order_acquire);
        bool ok = unreclaimed(p);
        d();
        ok = ok && unreclaimed(p);
        const auto id = p->id;
        dom.unlock();
        seg.record({it, id, d, ok});
        if (!ok) t.fail(seg, "a reader reached an object that was already reclaimed");
        reads[i].bump();
      }
    });
  for (std::size_t w = 0; w < writers; ++w)
    group.spawn([&, w] {
      rng r(100 + w);
      segment seg("writer " + str(w), 100 + w, "object id", "reclaim count after barrier");
      sut::rcu_domain& dom = sut::rcu_default_domain();
      for (std::uint64_t it = 0; t.running(); ++it) {
        rcu_object* old = slots[r.below(kSlots)].exchange(new rcu_object, std::memory_order_acq_rel);
        const auto id = old->id;  // never touch `old` after retiring it
        const bool in_region = r.one_in(2);
        if (in_region) dom.lock();
        if (r.one_in(2))
          old->retire();
        else
          sut::rcu_retire(old, quarantine_deleter{});
        if (in_region) dom.unlock();
        retired[w].push_back(id);
        sut::rcu_barrier();
        const int count = objects().reclaim_count(id);
        seg.record({it, id, {}, count});
        if (count != 1) t.fail(seg, "after the writer's own rcu_barrier its retired object was not reclaimed exactly once");
        writes[w].bump();
      }
    });
  for (std::size_t c = 0; c < collectors; ++c)
    group.spawn([&, c] {
      while (t.running()) {
        sut::rcu_barrier();
        collections[c].bump();
      }
    });

  t.run(duration);
  t.join(group);
  t.settle("retiring the last objects", [&] {
    for (auto& s : slots) {
      rcu_object* p = s.exchange(nullptr);
      retired[0].push_back(p->id);
      p->retire();
    }
  });
  t.settle("final rcu_barrier", [] { sut::rcu_barrier(); });
  std::uint64_t total = 0, not_once = 0, total_reads = 0, total_collections = 0;
  for (auto& ids : retired)
    for (auto id : ids) {
      ++total;
      if (objects().reclaim_count(id) != 1) ++not_once;
    }
  for (auto& r : reads) total_reads += r.get();
  for (auto& c : collections) total_collections += c.get();
  t.summary({{"reads", str(total_reads)}, {"retired", str(total)},
             {"collector_barriers", str(total_collections)}, {"not_reclaimed_once", str(not_once)},
             {"repeated_reclaims", str(objects().repeated_reclaims())}});
  CHECK(t.passed());
  CHECK(not_once == 0);
  CHECK(objects().repeated_reclaims() == 0);
}
