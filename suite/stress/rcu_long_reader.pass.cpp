// <rcu> torture RX-10: one long reader.
// REQUIRES: rcu
//
// Scenario: a long reader repeatedly opens a region, loads the current object and holds
// the region, sleeping or spinning, checking the object every millisecond (each check is a
// tick: its progress, which also excuses the updaters it holds back); it announces "holding k"
// right after lock() and "leaving k" right before unlock(). Meanwhile a writer keeps
// replacing the object and retiring the old one with rcu_retire (so the long reader's
// object is retired early in its hold), a synchronizer loops rcu_synchronize() with short
// pauses, an observer starts one rcu_synchronize() in each hold once it sees "holding k",
// and -- in the core test -- short readers keep checking the current object.
//
// Invariants:
//  - core ([saferecl.rcu.general]/5, [saferecl.rcu.domain.func]/2-3; R3, R29, R30): the
//    long reader's object stays unreclaimed for the whole hold; a synchronize that started
//    after "holding k" and before "leaving k" returns only after "leaving k" is visible;
//    once the reader has left, grace periods resume (stall detection) and the final
//    rcu_barrier reclaims every retired object exactly once (R5, R33).
//  - qoi (RX-10, MR-17): a synchronize that waits for the long reader sleeps: the
//    observer's CPU time stays under 20% of the time it could have run while waiting (its
//    wall time less its own time runnable without a CPU: a busy-waiting synchronizer on a
//    machine busy with other work gets little CPU, but only because it waits for one, and
//    its share of the time it could run stays near 100%; a sleeping one stays near 0). Run with the
//    observer as the only updater -- no writer, synchronizer or short readers -- so that
//    its own call runs the grace period (another updater could run it and spin while
//    the observer sleeps on a lock), and no unlock legitimately wakes a sleeping waiter.
//
// The core holds last 5.5 s, sleeping or spinning: longer than any timeout after which an
// implementation might presume a reader dead (1 s, 2 s, 5 s) and let a grace period end
// without it (mutant MR-95). They mostly wait, so they run beside other tests (suite
// "core.concurrency": one CPU each, where a stress test takes both).
//
// Knobs: holds of 5.5 s (core), 800 ms (qoi); 1 cycle x scale (core), 1 (qoi); 2 short
// readers (x sqrt(scale)).
#include "support/stress_harness.hpp"
#include "support/test.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

constexpr auto kLongHold = 5500ms;
constexpr auto kQoiHold = 800ms;
constexpr double kMaxCpuShare = 0.2;

std::chrono::nanoseconds thread_cpu_time() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

// How long this thread has been runnable but waiting for a CPU (schedstat's run delay).
std::chrono::nanoseconds thread_run_delay() {
  unsigned long long on_cpu = 0, delay = 0;
  if (std::FILE* f = std::fopen("/proc/thread-self/schedstat", "r")) {
    if (std::fscanf(f, "%llu %llu", &on_cpu, &delay) != 2) delay = 0;
    std::fclose(f);
  }
  return std::chrono::nanoseconds(delay);
}

struct options {
  const char* name;
  std::chrono::milliseconds hold;
  bool spin;  // the long reader spins in its region instead of sleeping
  std::uint64_t cycles;
  bool short_readers;
  bool updaters;  // the writer and the back-to-back synchronizer
};

struct outcome {
  std::uint64_t waited_syncs = 0;
  double cpu_share = 0;  // CPU time / time it could run, over the synchronizes that waited
};

outcome long_reader(const options& opt) {
  const std::size_t shorts = opt.short_readers ? threads(2) : 0;
  print_config(opt.name, {{"hold_ms", str(opt.hold.count())}, {"spin", opt.spin ? "1" : "0"},
                          {"cycles", str(opt.cycles)}, {"short_readers", str(shorts)}});

  std::atomic<rcu_object*> current{new rcu_object};
  std::atomic<std::uint64_t> holding{0}, leaving{0};
  torture t(opt.name);
  progress cycles_done, writes, syncs, held;
  std::vector<progress> short_reads(shorts);
  t.watch("long reader", held);
  if (opt.updaters) {  // either may wait for the long reader as long as it holds
    t.watch("writer", writes, held);
    t.watch("synchronizer", syncs, held);
  }
  for (std::size_t i = 0; i < shorts; ++i) t.watch("short reader " + str(i), short_reads[i]);
  std::mutex retired_mutex;
  std::vector<object_log::id_t> retired;
  std::chrono::nanoseconds waited_wall{0}, waited_cpu{0}, waited_for_cpu{0};
  outcome o;

  thread_group group;
  group.spawn([&] {  // the long reader
    segment seg("long reader", 0, "object id", "ms held");
    sut::rcu_domain& dom = sut::rcu_default_domain();
    for (std::uint64_t k = 1; k <= opt.cycles && t.running(); ++k) {
      std::this_thread::sleep_for(100ms);
      dom.lock();
      const rcu_object* p = current.load(std::memory_order_acquire);
      holding.store(k, std::memory_order_release);
      const auto start = clock::now();
      for (std::int64_t ms = 0; clock::now() - start < opt.hold; ++ms) {
        if (opt.spin) {
          const auto tick = clock::now() + 1ms;
          while (clock::now() < tick) std::atomic_signal_fence(std::memory_order_seq_cst);
        } else {
          std::this_thread::sleep_for(1ms);
        }
        held.bump();
        if (!p->alive() || objects().reclaimed(p->id)) {
          seg.record({k, p->id, {}, ms});
          t.fail(seg, "the long reader's object was reclaimed during its region");
          break;
        }
      }
      leaving.store(k, std::memory_order_release);
      dom.unlock();
      cycles_done.bump();
    }
    t.stop();  // the run is as long as the cycles
  });
  if (opt.updaters) {
    group.spawn([&] {  // the writer
      while (t.running()) {
        rcu_object* old = current.exchange(new rcu_object, std::memory_order_acq_rel);
        {
          std::lock_guard lock(retired_mutex);
          retired.push_back(old->id);
        }
        sut::rcu_retire(old, quarantine_deleter{});
        writes.bump();
        std::this_thread::sleep_for(20us);
      }
    });
  }
  // A synchronize that the hold must block, and what it cost; false if it returned early.
  auto synchronize_and_check = [&](segment& seg, std::uint64_t it, bool measure) {
    const std::uint64_t held = holding.load(std::memory_order_acquire);
    const bool inside = held > leaving.load(std::memory_order_acquire);
    const auto wall0 = clock::now();
    const auto cpu0 = thread_cpu_time();
    const auto delay0 = thread_run_delay();
    sut::rcu_synchronize();
    const auto delay1 = thread_run_delay();
    const auto cpu1 = thread_cpu_time();
    const auto wall1 = clock::now();
    const std::uint64_t left = leaving.load(std::memory_order_acquire);
    if (!inside) return;
    seg.record({it, held, {}, static_cast<std::int64_t>(left)});
    if (left < held) t.fail(seg, "rcu_synchronize returned while the long reader was still inside");
    if (!measure) return;
    ++o.waited_syncs;
    waited_wall += wall1 - wall0;
    waited_cpu += cpu1 - cpu0;
    waited_for_cpu += delay1 - delay0;
  };
  if (opt.updaters) {
    group.spawn([&] {  // the synchronizer: back to back, some calls straddle the reader's lock
      rng r(1);
      segment seg("synchronizer", 1, "cycle held", "cycle left after return");
      for (std::uint64_t it = 0; t.running(); ++it) {
        synchronize_and_check(seg, it, false);
        syncs.bump();
        std::this_thread::sleep_for(std::chrono::microseconds(r.below(2000)));
      }
    });
  }
  group.spawn([&] {  // the observer: one synchronize per hold, started once it is seen
    segment seg("observer", 2, "cycle held", "cycle left after return");
    for (std::uint64_t k = 1; t.running(); ++k) {
      while (t.running() && holding.load(std::memory_order_acquire) < k)
        std::this_thread::sleep_for(1ms);
      if (!t.running()) break;
      synchronize_and_check(seg, k, true);
    }
  });
  for (std::size_t i = 0; i < shorts; ++i)
    group.spawn([&, i] {
      rng r(100 + i);
      segment seg("short reader " + str(i), 100 + i, "object id", "unreclaimed");
      sut::rcu_domain& dom = sut::rcu_default_domain();
      for (std::uint64_t it = 0; t.running(); ++it) {
        const delay d = draw(r);
        dom.lock();
        const rcu_object* p = current.load(std::memory_order_acquire);
        d();
        const bool ok = p->alive() && !objects().reclaimed(p->id);
        const auto id = p->id;
        dom.unlock();
        seg.record({it, id, d, ok});
        if (!ok) t.fail(seg, "a short reader reached a reclaimed object");
        short_reads[i].bump();
      }
    });

  // The long reader ends the run; the limit only bounds a run that hangs.
  t.run(opt.cycles * (opt.hold + 100ms) + 30s);
  t.join(group);
  rcu_object* last = current.exchange(nullptr);
  retired.push_back(last->id);
  t.settle("retiring the last object", [&] { last->retire(); });
  t.settle("final rcu_barrier", [] { sut::rcu_barrier(); });
  std::uint64_t not_once = 0;
  for (auto id : retired) not_once += objects().reclaim_count(id) != 1;
  const auto could_run = waited_wall - std::min(waited_wall, waited_for_cpu);
  o.cpu_share = could_run.count() > 0
                    ? static_cast<double>(waited_cpu.count()) / static_cast<double>(could_run.count())
                    : 0;
  t.summary({{"cycles", str(cycles_done.get())}, {"retired", str(retired.size())},
             {"synchronizes", str(syncs.get())}, {"observed_synchronizes", str(o.waited_syncs)},
             {"waited_ms", str(std::chrono::duration_cast<std::chrono::milliseconds>(waited_wall).count())},
             {"waited_for_a_cpu_ms", str(std::chrono::duration_cast<std::chrono::milliseconds>(waited_for_cpu).count())},
             {"cpu_share_while_waiting", std::to_string(o.cpu_share)}});
  CHECK(t.passed());
  CHECK(cycles_done.get() == opt.cycles);
  CHECK_MESSAGE(not_once == 0, not_once, " retired objects were not reclaimed exactly once");
  return o;
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/2 R29 RX-10: a long reader holds back synchronize and reclamation until it leaves" *
          doctest::test_suite("core.concurrency")) {
  const outcome o = long_reader({.name = "RX-10", .hold = kLongHold, .spin = false,
                                 .cycles = scaled(1), .short_readers = true, .updaters = true});
  CHECK(o.waited_syncs >= 1);
}

TEST_CASE("saferecl.rcu.domain.func/2 R29 RX-10: a reader spinning in its region for seconds holds back synchronize and reclamation" *
          doctest::test_suite("core.concurrency")) {
  const outcome o = long_reader({.name = "RX-10 spin", .hold = kLongHold, .spin = true,
                                 .cycles = scaled(1), .short_readers = true, .updaters = true});
  CHECK(o.waited_syncs >= 1);
}

TEST_CASE("saferecl.rcu.domain.func/2 R29 RX-10: a synchronize blocked by a long reader does not busy-wait" *
          doctest::test_suite("qoi.stress")) {
  const outcome o = long_reader({.name = "RX-10 cpu", .hold = kQoiHold, .spin = false,
                                 .cycles = 1, .short_readers = false, .updaters = false});
  CHECK(o.waited_syncs >= 1);
  CHECK_MESSAGE(o.cpu_share < kMaxCpuShare, "the waiting synchronizer used ",
                o.cpu_share * 100, "% of the time it could run");
}
