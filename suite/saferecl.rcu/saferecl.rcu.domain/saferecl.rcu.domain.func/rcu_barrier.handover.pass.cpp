// <rcu>
//
// void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: may evaluate any scheduled evaluations in dom; for any evaluation that
//   happens before the call and schedules an evaluation E in dom, blocks until E has been
//   evaluated.
//   Synchronization: the evaluation of any such E strongly happens before the return from
//   rcu_barrier.
//
// Work in flight between two owners (issue 39). An implementation whose executors (another
// thread's barrier, a flush, a callback thread) first take queued evaluations and only then
// make them known as "in flight" has a window in which an evaluation is neither queued nor
// in flight: a barrier that looks then may return before its caller's own earlier
// evaluation has run. Here several threads each retire a few objects and then, all at
// once, call rcu_barrier, round after round: no retire comes between the calls, so every
// evaluation becomes runnable at the same moment, one caller (or another executor) takes
// them all, and the other callers look while it does; each caller checks, right after its own barrier returns, that
// every evaluation it scheduled before the call has run (plain writes read without a race
// only if the deleter's run happens before the return). Threads that retire and exit while
// barriers run elsewhere hand their evaluations over: a later barrier finds each run once.
//
// Relies on: rcu_barrier as the only proof that deleters ran; no region open on these
// threads; counts, not time, bound every loop.
#include "support/test.hpp"
#include "support/custody.hpp"
#include "support/rcu_objects.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

using saferecl::test::check_custody_of_the_reclaimed;
using saferecl::test::custody_set;
using saferecl::test::plain_object;
using saferecl::test::tagged_deleter;
using saferecl::test::thread_group;
using saferecl::test::tracked;
using saferecl::test::within_watchdog;

namespace {

constexpr std::size_t kThreads = 4;
constexpr std::size_t kPerRound = 8;

// The round whose evaluation last ran, per thread and slot: plain, so that only the
// barrier's happens-before makes reading it right after the barrier race-free.
std::array<std::array<std::size_t, kPerRound>, kThreads> g_ran_round{};

struct round_deleter {
  std::size_t thread = 0, slot = 0, round = 0;
  void operator()(plain_object* p) const noexcept {
    g_ran_round[thread][slot] = round;
    delete p;
  }
};

struct tagged_object : sut::rcu_obj_base<tagged_object, tagged_deleter>, tracked {
  std::uint64_t tag = 0;
};

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/4 R33: concurrent rcu_barrier calls each return only after their own caller's earlier evaluations ran" *
          doctest::test_suite("core.concurrency")) {
  const std::size_t rounds = saferecl::test::scaled(150);
  std::atomic<std::size_t> early{0};

  within_watchdog("threads retire and call rcu_barrier, round after round",
                  [&](saferecl::test::watchdog& dog) {
    saferecl::test::atomic_barrier retired(kThreads), checked(kThreads);
    saferecl::test::run_in_parallel(kThreads, [&](std::size_t t) {
      for (std::size_t round = 1; round <= rounds; ++round) {
        for (std::size_t s = 0; s < kPerRound; ++s)
          sut::rcu_retire(new plain_object(static_cast<int>(s)), round_deleter{t, s, round});
        retired.arrive_and_wait();  // every barrier of the round starts after every retire
        sut::rcu_barrier();
        for (std::size_t s = 0; s < kPerRound; ++s)
          if (g_ran_round[t][s] != round) early.fetch_add(1, std::memory_order_relaxed);
        checked.arrive_and_wait();
        dog.progressed();
      }
    });
  });
  INFO(early.load(), " evaluations had not run when their caller's own barrier returned");
  CHECK(early.load() == 0);
}

TEST_CASE("saferecl.rcu.domain.func/4 R33: custody: evaluations of threads that exit while others run rcu_barrier all run once after a later barrier" *
          doctest::test_suite("core.lifetime")) {
  constexpr std::size_t kPerWave = 2;
  constexpr std::size_t kPerThread = 200;
  const std::size_t waves = saferecl::test::scaled(40);
  std::vector<custody_set> sets(waves * kPerWave);
  std::atomic<bool> stop{false};

  within_watchdog("threads retire, then exit, while two threads loop on rcu_barrier",
                  [&](saferecl::test::watchdog& dog) {
    thread_group barriers;
    for (int i = 0; i < 2; ++i)
      barriers.spawn([&] {
        while (!stop.load(std::memory_order_acquire)) {
          sut::rcu_barrier();
          dog.progressed();
        }
      });
    for (std::size_t wave = 0; wave < waves; ++wave) {
      thread_group exiting;
      for (std::size_t t = 0; t < kPerWave; ++t)
        exiting.spawn([&, i = wave * kPerWave + t] {
          for (std::size_t k = 0; k < kPerThread; ++k) {
            auto* p = new tagged_object;
            p->tag = p->id + 1;
            sets[i].add(p);
            if (k % 2 == 0)
              p->retire(tagged_deleter(p->tag));
            else
              sut::rcu_retire(p, tagged_deleter(p->tag));
          }
        });
      exiting.join();
      dog.progressed();
    }
    stop.store(true, std::memory_order_release);
  });

  within_watchdog("rcu_barrier after the exits", [] { sut::rcu_barrier(); });
  custody_set all;
  for (const custody_set& s : sets) all.merge(s);
  CHECK(all.reclaimed() == all.size());
  check_custody_of_the_reclaimed(all);
  CHECK(saferecl::test::custody_wrong_tag().load() == 0);
}
