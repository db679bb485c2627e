// <rcu>
//
// void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: if the call does not strongly happen before the lock opening a region R,
//   blocks until the unlock closing R happens.
//
// The readers here are threads whose first locks happen at once: whatever an implementation
// does on a thread's first lock (registering a reader record, taking one from a pool) it does
// for several threads at once, and a record lost in that race is a region no grace period
// waits for. While all of them are inside, the others' regions cover a lost one, so each then
// holds a region alone. Implementations also recycle: a thread that replaces an exited one
// may get its record, its stack and its static TLS, so the same checks run on threads
// started after others used regions and exited, beside a reader older than all of them.
//
// Relies on: each reader's lock happening before the synchronize (the readers arrive on a
// latch inside their regions first); a short sleep only to show that the synchronize has
// not returned yet; fork (the first-use race is repeated in fresh child processes, where
// no thread has registered yet).
#include "support/fresh_processes.hpp"
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdio>

using saferecl::test::atomic_latch;
using saferecl::test::blocking_call;
using saferecl::test::event;
using saferecl::test::region_holder;
using saferecl::test::thread_group;

namespace {

constexpr std::size_t kReaders = 8;
// Long enough for a synchronize that waits for nobody to return (microseconds), short
// enough to repeat for every reader in every fresh process.
constexpr std::chrono::milliseconds kStillBlockedFor{10};

// kReaders threads released together, each opening its region with its first lock; the
// constructor returns once all of them are inside. After release() each thread holds one
// more region when its turn comes: with every reader inside, a lost record is covered by
// the others; alone, it is not.
class readers_registering_at_once {
 public:
  readers_registering_at_once() {
    for (std::size_t i = 0; i < kReaders; ++i)
      threads_.spawn([this, i] {
        start_.arrive_and_wait();
        sut::rcu_default_domain().lock();
        inside_.arrive_and_wait();
        released_.wait();
        sut::rcu_default_domain().unlock();
        turn_[i].wait();
        sut::rcu_default_domain().lock();
        alone_inside_[i].set();
        alone_released_[i].wait();
        sut::rcu_default_domain().unlock();
      });
    saferecl::test::within_watchdog("readers entering their first regions", [this] { inside_.arrive_and_wait(); });
  }
  readers_registering_at_once(const readers_registering_at_once&) = delete;
  readers_registering_at_once& operator=(const readers_registering_at_once&) = delete;
  ~readers_registering_at_once() {
    release();
    for (std::size_t i = 0; i < kReaders; ++i) {
      turn_[i].set();
      alone_released_[i].set();
    }
    saferecl::test::within_watchdog("readers leaving their regions", [this] { threads_.join(); });
  }

  void release() { released_.set(); }

  // True if a synchronize stays blocked while reader i alone is inside its region.
  bool synchronize_waits_for_alone(std::size_t i) {
    turn_[i].set();
    saferecl::test::within_watchdog("a reader entering its region", [&] { alone_inside_[i].wait(); });
    blocking_call sync("rcu_synchronize while one reader holds a region", [] { sut::rcu_synchronize(); });
    const bool waited = sync.still_blocked(kStillBlockedFor);
    alone_released_[i].set();
    sync.join();
    return waited;
  }

 private:
  atomic_latch start_{kReaders};
  atomic_latch inside_{kReaders + 1};  // and the constructing thread
  event released_;
  std::array<event, kReaders> turn_;
  std::array<event, kReaders> alone_inside_;
  std::array<event, kReaders> alone_released_;
  thread_group threads_;
};

// Counts the checks that failed: a synchronize started while the readers are inside their
// first regions stays blocked, and so does one started while any one of them alone holds.
std::size_t synchronizes_not_waiting(readers_registering_at_once& readers) {
  std::size_t failed = 0;
  {
    blocking_call sync("rcu_synchronize while readers hold their first regions", [] { sut::rcu_synchronize(); });
    failed += sync.still_blocked(kStillBlockedFor) ? 0 : 1;
    readers.release();
  }
  for (std::size_t i = 0; i < kReaders; ++i) failed += readers.synchronize_waits_for_alone(i) ? 0 : 1;
  return failed;
}

// Threads that register, use regions and exit, leaving whatever they leave to the next ones.
void exited_readers() {
  saferecl::test::run_in_parallel(kReaders, [](std::size_t) {
    for (int i = 0; i < 10; ++i) {
      sut::rcu_default_domain().lock();
      sut::rcu_default_domain().unlock();
    }
  });
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/2 R29: rcu_synchronize waits for the regions of threads that registered at once" *
          doctest::test_suite("core.concurrency")) {
  readers_registering_at_once readers;
  CHECK(synchronizes_not_waiting(readers) == 0);
}

// A registration race happens once per thread, in a process whose registry is still empty
// or small, and a lost record shows only when that race goes wrong; without a race detector
// nothing else shows it. So the first regions are repeated in many fresh processes.
TEST_CASE("saferecl.rcu.domain.func/2 R29: rcu_synchronize waits for the regions of threads that registered at once, in each of many fresh processes" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kProcesses = 16;
  const bool passed = saferecl::test::passes_in_fresh_processes(kProcesses, [] {
    readers_registering_at_once readers;
    const std::size_t failed = synchronizes_not_waiting(readers);
    if (failed != 0) std::fprintf(stderr, "%zu of %zu checks: rcu_synchronize did not wait\n", failed, kReaders + 1);
    return failed == 0;
  });
  CHECK_MESSAGE(passed, "in a fresh process (of ", kProcesses,
                "), rcu_synchronize returned while a reader that registered at once with others was inside, or it failed (above)");
}

// Warm state: the readers run on threads that replace exited readers (glibc hands a new
// thread a cached stack and static TLS block), and a reader that registered before all of
// them must still be waited for after they leave.
TEST_CASE("saferecl.rcu.domain.func/2 R29: warm: rcu_synchronize waits for readers on threads that replace exited ones, and for an older reader" *
          doctest::test_suite("core.lifetime")) {
  region_holder older;  // registered before every other reader thread of this test
  for (int wave = 0; wave < 3; ++wave) exited_readers();
  readers_registering_at_once readers;
  readers.release();
  {
    blocking_call sync("rcu_synchronize while the older reader holds its region", [] { sut::rcu_synchronize(); });
    CHECK_MESSAGE(sync.still_blocked(kStillBlockedFor),
                  "rcu_synchronize returned while the older reader was still inside");
    older.release();
  }
  for (std::size_t i = 0; i < kReaders; ++i)
    CHECK_MESSAGE(readers.synchronize_waits_for_alone(i), "rcu_synchronize returned while new reader ", i,
                  " was inside");
}
