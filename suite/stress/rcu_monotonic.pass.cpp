// <rcu> torture RX-05: a monotonic counter published through fresh allocations.
// REQUIRES: rcu
//
// Scenario (OpenSSL's torture_rcu_low/high): writers, serialized by a mutex, take the next
// value of a counter, allocate a box holding it, store the counter into `published`, swap
// the box into `current`, and get rid of the old box -- rcu_synchronize() then the
// deleter, rcu_retire(), or its own retire(), at random; the deleter zeroes the value and
// quarantines the memory. The "high" writer never pauses, the "low" one sleeps 100 us
// between updates. Readers open a region (sometimes a nested pair), read the box, wait a
// random delay and read it again.
//
// Invariants ([saferecl.rcu.general]/5, R3): a box read in a region is not reclaimed
// before the region ends, so its value is never 0, stays the same across the delay, never
// exceeds `published`, and -- by read-read coherence on `current` -- never decreases from
// one region of a reader to its next.
//
// Knobs: 1.5 s x scale; 4 readers (x sqrt(scale)); 2 writers (one high, one low rate).
#include "support/stress_harness.hpp"
#include "support/test.hpp"

#include <array>
#include <mutex>
#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct box;
struct zero_and_bury {
  void operator()(box* p) const noexcept;
};
struct box : sut::rcu_obj_base<box, zero_and_bury> {
  explicit box(std::uint64_t v) : value(v) {}
  std::uint64_t value;
};
std::atomic<std::uint64_t> g_reclaimed{0};  // namespace scope: deleters outlive blocks
void zero_and_bury::operator()(box* p) const noexcept {
  p->value = 0;
  g_reclaimed.fetch_add(1, std::memory_order_relaxed);
  graveyard().bury(p, [](void* m) noexcept { delete static_cast<box*>(m); });
}

}  // namespace

TEST_CASE("saferecl.rcu.general/5 R3 RX-05: readers see live values that never go back" *
          doctest::test_suite("core.stress")) {
  const std::size_t readers = threads(4);
  const auto duration = scaled(1500ms);
  print_config("RX-05", {{"readers", str(readers)}, {"writers", "2 (high, low)"},
                         {"duration_ms", str(duration.count())}});

  std::mutex writer_mutex;
  std::uint64_t counter = 1;
  std::atomic<std::uint64_t> published{1};
  std::atomic<box*> current{new box(1)};
  const std::uint64_t reclaimed_before = g_reclaimed.load();

  torture t("RX-05");
  std::vector<progress> reads(readers);
  std::array<progress, 2> writes;
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), reads[i]);
  // Only the high writer is watched: std::mutex is not fair, and the high writer may take
  // the writers' mutex again and again while the low one sleeps (seen: 17 low updates in
  // 1.5 s on a loaded host). A grace period stuck under either writer holds the mutex, so
  // it stalls the high writer too.
  t.watch("writer high", writes[0]);
  std::array<std::array<std::uint64_t, 3>, 2> modes{};

  thread_group group;
  for (std::size_t i = 0; i < readers; ++i)
    group.spawn([&, i] {
      rng r(i);
      segment seg("reader " + str(i), i, "value", "value after delay");
      sut::rcu_domain& dom = sut::rcu_default_domain();
      std::uint64_t last = 0;
      for (std::uint64_t it = 0; t.running(); ++it) {
        const bool nested = r.one_in(4);
        const delay d = draw(r);
        dom.lock();
        if (nested) dom.lock();
        const box* b = current.load(std::memory_order_acquire);
        const std::uint64_t v = b->value;
        const std::uint64_t limit = published.load(std::memory_order_acquire);
        if (nested) dom.unlock();
        d();
        const std::uint64_t again = b->value;
        dom.unlock();
        seg.record({it, v, d, static_cast<std::int64_t>(again)});
        if (v == 0 || again != v) t.fail(seg, "a reader saw a zeroed (reclaimed) box");
        else if (v > limit) t.fail(seg, "a reader saw a value that was never published");
        else if (v < last) t.fail(seg, "a reader's values went back");
        last = v;
        reads[i].bump();
      }
    });
  for (std::size_t w = 0; w < 2; ++w)
    group.spawn([&, w] {
      rng r(100 + w);
      while (t.running()) {
        {
          std::lock_guard lock(writer_mutex);
          const std::uint64_t v = ++counter;
          box* fresh = new box(v);
          published.store(v, std::memory_order_release);
          box* old = current.exchange(fresh, std::memory_order_acq_rel);
          const std::uint64_t mode = r.below(3);
          ++modes[w][mode];
          if (mode == 0) {
            sut::rcu_synchronize();
            zero_and_bury{}(old);
          } else if (mode == 1) {
            sut::rcu_retire(old, zero_and_bury{});
          } else {
            old->retire();
          }
        }
        writes[w].bump();
        if (w == 1) std::this_thread::sleep_for(100us);
      }
    });

  t.run(duration);
  t.join(group);
  t.settle("retiring the last object", [&] { current.exchange(nullptr)->retire(); });
  t.settle("final rcu_barrier", [] { sut::rcu_barrier(); });
  std::uint64_t total_reads = 0;
  for (auto& r : reads) total_reads += r.get();
  t.summary({{"reads", str(total_reads)}, {"updates_high", str(writes[0].get())},
             {"updates_low", str(writes[1].get())},
             {"synchronize_then_delete", str(modes[0][0] + modes[1][0])},
             {"rcu_retires", str(modes[0][1] + modes[1][1])},
             {"obj_base_retires", str(modes[0][2] + modes[1][2])},
             {"reclaimed", str(g_reclaimed.load() - reclaimed_before)}});
  CHECK(t.passed());
  CHECK(g_reclaimed.load() - reclaimed_before == counter);
}
