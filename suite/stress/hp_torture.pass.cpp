// <hazard_pointer> torture HX-08: the age ("pipe") torture for hazard pointers.
// REQUIRES: hazard-pointer
//
// Scenario: writers keep replacing the current object and retiring the old one; each
// replacement advances a clock, and a removed object records the clock value at which it
// was removed. Readers protect the current object, check it, hold the protection across a
// random delay -- a spin, or a sleep of 1-100 us -- check it again and record its age (how
// many replacements ago it was removed). Now and then a reader instead
//  - holds for 1-5 ms, checking every millisecond (a long reader), or
//  - protects with a fresh holder and hands the holder, still protecting, to a releaser
//    thread, which keeps up to 8 such holders, checks their objects and destroys them in
//    random order later: an epoch ended on a thread that did not begin it.
//
// Invariant ([saferecl.hp.general]/6, H1, H7): whatever its age, an object stays intact
// while a hazard pointer that protected it before its retirement is unchanged -- wherever
// that hazard pointer is. The age histogram (log2 buckets) shows how stale the protected
// objects got; a reclamation during a hold shows that passes ran meanwhile.
//
// Knobs: 1 s quick, 2.5 s x scale above it (suite/README.md, "Stress durations"); 4 readers, 2
// writers (x sqrt(scale)), 1 releaser; a long hold one time in 256, a hand-over one time in
// 16.
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

#include <deque>
#include <mutex>
#include <sstream>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct object : payload, sut::hazard_pointer_obj_base<object, poison<object>> {
  explicit object(std::uint64_t serial) : payload(serial) {}
  std::atomic<std::uint64_t> removed_at{0};  // the clock at removal; 0 while current
};

constexpr std::size_t kAgeBuckets = 16;

// A protected object in transit: the holder that protects it, and what it should hold.
struct handed_over {
  sut::hazard_pointer holder;
  object* p;
  std::uint64_t serial;
};

}  // namespace

TEST_CASE("saferecl.hp.general/6 H7 HX-08: protection survives long holds and release on another thread" *
          doctest::test_suite("core.stress")) {
  const std::size_t readers = threads(4), writers = threads(2);
  const auto duration = stress_duration(1000ms, 2500ms);
  print_config("HX-08", {{"readers", str(readers)}, {"writers", str(writers)},
                         {"releasers", "1"}, {"long_hold", "1/256"}, {"hand_over", "1/16"},
                         {"duration_ms", str(duration.count())}});

  std::atomic<object*> current{new object(0)};
  std::atomic<std::uint64_t> clock_{0};
  std::mutex inbox_mutex;
  std::deque<handed_over> inbox;

  torture t("HX-08");
  std::vector<progress> reads(readers), writes(writers);
  progress releaser_rounds;
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), reads[i]);
  for (std::size_t i = 0; i < writers; ++i) t.watch("writer " + str(i), writes[i]);
  t.watch("releaser", releaser_rounds);
  std::vector<std::vector<std::uint64_t>> ages(readers, std::vector<std::uint64_t>(kAgeBuckets));
  progress long_holds, hand_overs, released, overlapped;

  // The age of a protected object: how many replacements ago it was removed (0: current).
  auto age_of = [&](const object* p) -> std::uint64_t {
    const std::uint64_t at = p->removed_at.load(std::memory_order_acquire);
    return at == 0 ? 0 : clock_.load(std::memory_order_relaxed) - at + 1;
  };

  thread_group group;
  for (std::size_t w = 0; w < writers; ++w)
    group.spawn([&, w] {
      while (t.running()) {
        const std::uint64_t serial = clock_.fetch_add(1, std::memory_order_relaxed) + 1;
        object* old = current.exchange(new object(serial), std::memory_order_acq_rel);
        old->removed_at.store(serial, std::memory_order_release);
        old->retire();
        writes[w].bump();
      }
    });
  for (std::size_t i = 0; i < readers; ++i)
    group.spawn([&, i] {
      rng r(i);
      segment seg("reader " + str(i), i, "serial", "age (-1: poisoned)");
      sut::hazard_pointer h = sut::make_hazard_pointer();
      for (std::uint64_t it = 0; t.running(); ++it) {
        if (r.one_in(16)) {  // hand a protecting holder over to the releaser
          sut::hazard_pointer fresh = sut::make_hazard_pointer();
          object* p = fresh.protect(current);
          const std::uint64_t serial = p->value();
          seg.record({it, serial, {}, p->intact() ? 0 : -1});
          if (!p->intact()) t.fail(seg, "a freshly protected object was poisoned");
          std::lock_guard lock(inbox_mutex);
          inbox.push_back({std::move(fresh), p, serial});
          hand_overs.bump();
          reads[i].bump();
          continue;
        }
        object* p = h.protect(current);
        const std::uint64_t serial = p->value();
        const std::uint64_t before = ledger<object>::reclaimed.load(std::memory_order_relaxed);
        bool ok = p->intact();
        delay d;
        if (r.one_in(256)) {  // a long reader: 1-5 ms, checking every millisecond
          d = {delay::kind::sleep, static_cast<std::uint32_t>(1000 * (1 + r.below(5)))};
          for (std::uint32_t ms = 0; ms < d.amount / 1000 && ok; ++ms) {
            std::this_thread::sleep_for(1ms);
            ok = p->intact() && p->value() == serial;
          }
          long_holds.bump();
        } else {
          d = r.one_in(2) ? delay{delay::kind::spin, static_cast<std::uint32_t>(r.below(1000))}
                          : delay{delay::kind::sleep, static_cast<std::uint32_t>(1 + r.below(100))};
          d();
        }
        ok = ok && p->intact() && p->value() == serial;
        const std::uint64_t age = age_of(p);
        if (ledger<object>::reclaimed.load(std::memory_order_relaxed) != before) overlapped.bump();
        seg.record({it, serial, d, ok ? static_cast<std::int64_t>(age) : -1});
        if (!ok) t.fail(seg, "a protected object was poisoned during its hold");
        ++ages[i][log2_bucket(age, kAgeBuckets)];
        if (r.one_in(2)) h.reset_protection();
        reads[i].bump();
      }
    });
  group.spawn([&] {  // the releaser: ends epochs that other threads began
    rng r(500);
    segment seg("releaser", 500, "serial", "intact");
    std::vector<handed_over> held;
    for (std::uint64_t it = 0; t.running() || !held.empty(); ++it) {
      {
        std::lock_guard lock(inbox_mutex);
        while (!inbox.empty() && held.size() < 8) {
          held.push_back(std::move(inbox.front()));
          inbox.pop_front();
        }
      }
      for (const handed_over& x : held) {
        const bool ok = x.p->intact() && x.p->value() == x.serial;
        seg.record({it, x.serial, {}, ok});
        if (!ok) t.fail(seg, "an object protected by a handed-over holder was poisoned");
      }
      if (!held.empty() && (held.size() >= 8 || r.one_in(4) || !t.running())) {
        std::swap(held[r.below(held.size())], held.back());
        held.pop_back();  // destroys the holder here: its epoch ends on this thread
        released.bump();
      }
      releaser_rounds.bump();
      std::this_thread::sleep_for(20us);
    }
  });

  t.run(duration);
  t.join(group);
  t.settle("destroying the holders left in the inbox", [&] { inbox.clear(); });  // on the main thread
  t.settle("retiring the last object", [&] { current.exchange(nullptr)->retire(); });
  std::vector<std::uint64_t> hist(kAgeBuckets);
  std::uint64_t total_reads = 0;
  for (std::size_t i = 0; i < readers; ++i) {
    total_reads += reads[i].get();
    for (std::size_t b = 0; b < kAgeBuckets; ++b) hist[b] += ages[i][b];
  }
  std::ostringstream extra;
  print_histogram(extra, "[saferecl] HX-08 age at release (0, 1, 2-3, 4-7, ...)", hist, ">=16384");
  t.summary({{"reads", str(total_reads)}, {"replacements", str(clock_.load())},
             {"long_holds", str(long_holds.get())}, {"hand_overs", str(hand_overs.get())},
             {"released_elsewhere", str(released.get())},
             {"holds_overlapping_a_reclamation", str(overlapped.get())},
             {"reclaimed", str(ledger<object>::reclaimed.load())}},
            extra.str());
  CHECK(t.passed());
  CHECK(ledger<object>::repeated.load() == 0);
}
