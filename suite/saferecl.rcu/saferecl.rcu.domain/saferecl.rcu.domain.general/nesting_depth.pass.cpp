// <rcu>
//
// [saferecl.rcu.domain.general]/2: rcu_domain meets the Cpp17Lockable requirements; calls
//   to lock may be nested: a thread may lock the domain it is already in a region of.
//   (No depth limit is specified.)
//
// Relies on: the nesting thread's outermost lock being confirmed before the synchronizer
// starts; short sleeps only to show that the synchronizer has not returned yet; no
// rcu_synchronize or rcu_barrier in the nesting thread.
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>

using saferecl::test::blocking_call;
using saferecl::test::objects;
using saferecl::test::rcu_object;
using saferecl::test::region_holder;

namespace {

sut::rcu_domain& dom() noexcept { return sut::rcu_default_domain(); }

}  // namespace

TEST_CASE("saferecl.rcu.domain.general/2 R22: lock and try_lock nest 64 deep and the region lasts to the last unlock" *
          doctest::test_suite("core.concurrency")) {
  constexpr int kDepth = 64;
  std::atomic<int> try_lock_failures{0};
  region_holder reader(
      [&] {
        for (int depth = 0; depth < kDepth; ++depth) {
          if (depth % 2 == 0)
            dom().lock();
          else if (!dom().try_lock())
            try_lock_failures.fetch_add(1);
        }
        for (int depth = kDepth; depth > 1; --depth) dom().unlock();
      },
      [] { dom().unlock(); });
  auto* x = new rcu_object;
  const auto id = x->id;
  x->retire();

  blocking_call barrier("rcu_barrier beside a region nested 64 deep, unwound to depth 1",
                        [] { sut::rcu_barrier(); });
  CHECK(barrier.still_blocked());
  CHECK_FALSE(objects().reclaimed(id));
  reader.release();
  barrier.join();
  CHECK(try_lock_failures.load() == 0);
  CHECK(objects().reclaim_count(id) == 1);
}

// Far past 2^16, where a nesting counter packed into 16 bits (or any narrow field) wraps.
// A synchronizer loops while the thread nests up and back down; every call that returns
// before the outermost unlock is a violation. The thread pauses wherever a power-of-two
// counter would read zero, to give a broken grace period time to slip through.
TEST_CASE("saferecl.rcu.domain.general/2 R22: one thread nests past 2^16 levels and stays protected throughout" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kDeep = (std::size_t{1} << 17) + 3;
  constexpr std::size_t kWrap = std::size_t{1} << 16;
  constexpr auto kPause = std::chrono::milliseconds(30);

  saferecl::test::event outermost_locked;
  std::atomic<bool> closing{false};
  std::atomic<int> returned_while_open{0};

  blocking_call synchronizer("rcu_synchronize beside a deep nest", [&] {
    outermost_locked.wait();
    for (;;) {
      sut::rcu_synchronize();
      if (closing.load(std::memory_order_relaxed)) break;  // the unlock -> return edge
      returned_while_open.fetch_add(1);
    }
  });
  blocking_call nester("nesting past 2^16 and back", [&] {
    dom().lock();
    outermost_locked.set();
    for (std::size_t depth = 1; depth < kDeep; ++depth) {
      dom().lock();
      if ((depth + 1) % kWrap == 0) std::this_thread::sleep_for(kPause);
    }
    std::this_thread::sleep_for(kPause);
    for (std::size_t depth = kDeep; depth > 1; --depth) {
      dom().unlock();
      if ((depth - 1) % kWrap == 0) std::this_thread::sleep_for(kPause);
    }
    std::this_thread::sleep_for(kPause);
    closing.store(true, std::memory_order_relaxed);
    dom().unlock();
  });
  nester.join();
  synchronizer.join();
  CHECK(returned_while_open.load() == 0);
}
