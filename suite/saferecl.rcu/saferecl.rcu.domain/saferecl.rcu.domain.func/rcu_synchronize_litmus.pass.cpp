// <rcu>
//
// void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: if the call does not strongly happen before the lock opening a region R,
//   blocks until the unlock closing R happens.
//   Synchronization: the unlock closing R strongly happens before the return.
//
// The grace-period guarantee as litmus tests (RS-06): for any region R and any call S,
// either S strongly happens before R's lock (so R sees everything before S) or R's unlock
// strongly happens before S returns (so everything in R happens before what follows S).
//
// Relies on: many rounds to give a broken grace period a chance (a pass proves nothing, a
// forbidden outcome proves a bug); ThreadSanitizer for the happens-before half of (b).
// The message-passing and load-buffering shapes of RS-06a are not here: x86-TSO forbids
// their outcomes with or without RCU, so no implementation could make them fail.
#include "support/test.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>

using saferecl::test::within_watchdog;

namespace {

sut::rcu_domain& dom() noexcept { return sut::rcu_default_domain(); }

// Busy-waits about n short steps: shifts one thread against the other by a different
// amount each round, so that some rounds line their critical steps up exactly.
void stagger(std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) std::atomic_signal_fence(std::memory_order_seq_cst);
}

// Two threads meet at the start of every round, so that their rounds overlap.
class rendezvous {
 public:
  void arrive_and_wait(std::size_t round) noexcept {
    const std::size_t target = 2 * (round + 1);
    arrived_.fetch_add(1);
    for (int spins = 0; arrived_.load() < target; ++spins)
      if (spins > 64) std::this_thread::yield();
  }

 private:
  std::atomic<std::size_t> arrived_{0};
};

}  // namespace

// Store buffering: the reader writes x inside its region and reads y; the updater writes
// y, synchronizes and reads x. Forbidden: neither sees the other's write.
TEST_CASE("saferecl.rcu.domain.func/2 R29: litmus: a region and a grace period cannot both miss each other's writes" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kRounds = 20000;
  struct round_state {
    std::atomic<int> x{0}, y{0};
    int reader_saw_y = -1, updater_saw_x = -1;
  };
  auto rounds = std::make_unique<round_state[]>(kRounds);
  rendezvous meet;

  within_watchdog("store-buffering litmus rounds", [&](saferecl::test::watchdog& round_done) {
    std::thread reader([&] {
      for (std::size_t i = 0; i < kRounds; ++i) {
        meet.arrive_and_wait(i);
        stagger(i % 16);
        dom().lock();
        rounds[i].x.store(1, std::memory_order_relaxed);
        rounds[i].reader_saw_y = rounds[i].y.load(std::memory_order_relaxed);
        dom().unlock();
      }
    });
    for (std::size_t i = 0; i < kRounds; ++i) {
      meet.arrive_and_wait(i);
      stagger(i / 16 % 16);
      rounds[i].y.store(1, std::memory_order_relaxed);
      sut::rcu_synchronize();
      rounds[i].updater_saw_x = rounds[i].x.load(std::memory_order_relaxed);
      round_done.progressed();
    }
    reader.join();
  });

  int forbidden = 0;
  for (std::size_t i = 0; i < kRounds; ++i)
    forbidden += rounds[i].reader_saw_y == 0 && rounds[i].updater_saw_x == 0;
  CHECK(forbidden == 0);
}

// Staged poison with plain variables: the updater publishes stage k+1, synchronizes, then
// poisons stage k. A reader that loaded k inside a region must still find stage k intact,
// and under TSan its read must not race with the poisoning write.
TEST_CASE("saferecl.rcu.domain.func/3 R30: litmus: a stage read in a region is never poisoned under the reader" *
          doctest::test_suite("core.concurrency")) {
  constexpr int kStages = 1500;
  constexpr int kReaders = 2;
  auto stage = std::make_unique<int[]>(kStages + 1);  // stage[k] == k + 1 while live, 0 after
  stage[0] = 1;
  std::atomic<int> current{0};
  std::atomic<bool> done{false};
  std::atomic<int> poisoned_reads{0};

  within_watchdog("staged-poison litmus", [&](saferecl::test::watchdog& stage_done) {
    saferecl::test::thread_group readers;
    for (int r = 0; r < kReaders; ++r)
      readers.spawn([&] {
        while (!done.load(std::memory_order_relaxed)) {
          dom().lock();
          const int k = current.load(std::memory_order_acquire);
          std::this_thread::yield();  // a long region: a grace period that missed it shows
          if (stage[k] != k + 1) poisoned_reads.fetch_add(1, std::memory_order_relaxed);
          dom().unlock();
        }
      });
    for (int k = 0; k < kStages; ++k) {
      std::this_thread::yield();  // readers enter regions on stage k before it is replaced
      stage[k + 1] = k + 2;
      current.store(k + 1, std::memory_order_release);
      sut::rcu_synchronize();
      stage[k] = 0;
      stage_done.progressed();
    }
    done = true;
  });
  CHECK(poisoned_reads.load() == 0);
}
