// <rcu>
//
// void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: if the call of rcu_synchronize does not strongly happen before the lock opening
//   an RCU protection region R on dom, blocks until the unlock closing R happens.
//   Synchronization: the unlock closing R strongly happens before the return from
//   rcu_synchronize.
//
// Relies on: each reader's region being confirmed open before the synchronizer starts (so
// the call cannot strongly happen before its lock); a short sleep only to show that the
// call has not returned yet; never calling rcu_synchronize inside one's own region.
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <atomic>
#include <memory>
#include <vector>

using saferecl::test::blocking_call;
using saferecl::test::region_holder;
using saferecl::test::within_watchdog;

namespace {

// A reader that writes `last_words` (relaxed) just before its unlock: a synchronizer that
// was blocked by the region must see the write once it returns, through the unlock ->
// return synchronization alone.
struct reader_with_last_words {
  std::atomic<bool> last_words{false};
  region_holder holder{region_holder::lock_default, [this] {
                         last_words.store(true, std::memory_order_relaxed);
                         region_holder::unlock_default();
                       }};
};

template <class Synchronize>
void check_blocked_until_unlock(Synchronize synchronize) {
  reader_with_last_words reader;
  bool saw_last_words = false;
  blocking_call sync("rcu_synchronize while a region is open", [&] {
    synchronize();
    saw_last_words = reader.last_words.load(std::memory_order_relaxed);
  });
  CHECK(sync.still_blocked());
  reader.holder.release();
  sync.join();
  CHECK(saw_last_words);
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/2 R29: rcu_synchronize() blocks until an open region closes" *
          doctest::test_suite("core.concurrency")) {
  check_blocked_until_unlock([] { sut::rcu_synchronize(); });
}

TEST_CASE("saferecl.rcu.domain.func/2 R29: rcu_synchronize(rcu_default_domain()) blocks until an open region closes" *
          doctest::test_suite("core.concurrency")) {
  check_blocked_until_unlock([] { sut::rcu_synchronize(sut::rcu_default_domain()); });
}

TEST_CASE("saferecl.rcu.domain.func/2 R29: rcu_synchronize waits for every pre-existing region, released one by one" *
          doctest::test_suite("core.concurrency")) {
  constexpr int kReaders = 4;
  std::vector<std::unique_ptr<region_holder>> readers;
  for (int i = 0; i < kReaders; ++i) readers.push_back(std::make_unique<region_holder>());
  blocking_call sync("rcu_synchronize with four readers", [] { sut::rcu_synchronize(); });
  for (auto& reader : readers) {
    CHECK(sync.still_blocked());
    reader->release();
    reader->join();
  }
  sync.join();
}

// A grace period that is already running when the call starts may have begun before a
// region that the call must wait for: joining it is not enough. (The earlier call may wait
// for the new reader as well -- nothing orders its start before that lock -- so it is
// joined only at the end.)
TEST_CASE("saferecl.rcu.domain.func/2 R29: rcu_synchronize called during another's grace period waits for regions opened before it" *
          doctest::test_suite("core.concurrency")) {
  auto old_reader = std::make_unique<region_holder>();
  blocking_call earlier("rcu_synchronize waiting for the old reader", [] { sut::rcu_synchronize(); });
  CHECK(earlier.still_blocked());  // its grace period is under way

  region_holder new_reader;
  blocking_call later("rcu_synchronize started after the new reader", [] { sut::rcu_synchronize(); });
  CHECK(later.still_blocked());  // and now it has joined the running grace period
  old_reader->release();
  old_reader->join();
  CHECK(later.still_blocked());
  new_reader.release();
  later.join();
  earlier.join();
}

TEST_CASE("saferecl.rcu.domain.func/2 R31: with no region open rcu_synchronize returns" *
          doctest::test_suite("core.semantic")) {
  // The calling thread's own regions, closed, must not count either.
  sut::rcu_default_domain().lock();
  sut::rcu_default_domain().unlock();
  within_watchdog("rcu_synchronize with no region open", [] {
    sut::rcu_synchronize();
    sut::rcu_synchronize(sut::rcu_default_domain());
  });
}

// RS-07: a plain write inside a region and a plain write after rcu_synchronize do not race.
// Nothing else orders them: the readers' signals are relaxed, or precede the write. The
// reader stays alive until the end, because ThreadSanitizer forgets the accesses of
// threads that have finished.
TEST_CASE("saferecl.rcu.domain.func/3 R30: a write in a region that closed before the call happens before the return" *
          doctest::test_suite("core.concurrency")) {
  int data = 0;
  std::atomic<bool> closed{false};
  saferecl::test::event finished;
  std::thread reader([&] {
    sut::rcu_default_domain().lock();
    data = 1;
    sut::rcu_default_domain().unlock();
    closed.store(true, std::memory_order_relaxed);
    finished.wait();
  });
  within_watchdog("the reader's region closing", [&] {
    while (!closed.load(std::memory_order_relaxed)) std::this_thread::yield();
  });
  within_watchdog("rcu_synchronize after the region closed", [] { sut::rcu_synchronize(); });
  CHECK(data == 1);  // a data race here is a TSan report
  data = 2;
  finished.set();
  within_watchdog("joining the reader", [&] { reader.join(); });
}

// RS-07, read side: the reclamation shape in miniature. A plain read inside a region, then a
// plain write after rcu_synchronize (the free of what the reader saw). The reader leaves its
// region and stays alive synchronizing with nothing that orders its read before the write
// (its signal is relaxed; what it waits for is set after the write), so only the unlock ->
// return synchronization does: an unlock whose store releases nothing of the region (a
// relaxed store with no release fence before it) leaves the read and the write racing.
TEST_CASE("saferecl.rcu.domain.func/3 R30: a read in a region that closed before the call happens before a write after the return" *
          doctest::test_suite("core.concurrency")) {
  int data = 1;
  int seen = 0;
  std::atomic<bool> closed{false};
  saferecl::test::event written;
  std::thread reader([&] {
    sut::rcu_default_domain().lock();
    seen = data;
    sut::rcu_default_domain().unlock();
    closed.store(true, std::memory_order_relaxed);
    written.wait();
  });
  within_watchdog("the reader's region closing", [&] {
    while (!closed.load(std::memory_order_relaxed)) std::this_thread::yield();
  });
  within_watchdog("rcu_synchronize after the region closed", [] { sut::rcu_synchronize(); });
  data = 2;  // a data race with the reader's read is a TSan report
  written.set();
  within_watchdog("joining the reader", [&] { reader.join(); });
  CHECK(seen == 1);
}

TEST_CASE("saferecl.rcu.domain.func/3 R30: a write in a region the call waits for happens before the return" *
          doctest::test_suite("core.concurrency")) {
  int data = 0;
  saferecl::test::event inside;
  saferecl::test::event finished;
  std::thread reader([&] {
    sut::rcu_default_domain().lock();
    inside.set();  // before the write: the event must not order it
    data = 1;
    sut::rcu_default_domain().unlock();
    finished.wait();
  });
  within_watchdog("the reader entering its region", [&] { inside.wait(); });
  within_watchdog("rcu_synchronize waiting for the region", [] { sut::rcu_synchronize(); });
  CHECK(data == 1);
  data = 2;
  finished.set();
  within_watchdog("joining the reader", [&] { reader.join(); });
}
