// <hazard_pointer>
//
// [saferecl.hp.general]/6: x is not reclaimed while any protection epoch associated with x
//   that began before x's retirement lasts.
// [saferecl.hp.holder.nonmem]/1: make_hazard_pointer constructs a hazard pointer.
//
// Storage for hazard pointers grows as they are made (blocks of records, slot arrays that
// are reallocated, per-thread arrays) and is unspecified; whatever it is, the hazard of a
// record added while other threads add theirs must be seen by every later reclamation. Here
// many threads make their first hazard pointers at once, dozens each, so the storage grows
// concurrently from nothing; each protects an object of its own, and after all of them
// hold, every object is retired and reclamation is provoked: none may be reclaimed.
//
// Relies on: churn as the only portable way to provoke reclamation; the handshake (every
// thread reports its epochs begun) ordering each epoch before the retirement; fork (the
// growth from an empty registry is repeated in fresh child processes); at most
// kHoldersPerThread hazard pointers per thread (within every adapter's stated limit).
#include "support/fresh_processes.hpp"
#include "support/hp_checks.hpp"
#include "support/test.hpp"

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <vector>

using saferecl::test::atomic_latch;
using saferecl::test::event;
using saferecl::test::objects;
using saferecl::test::published;
using saferecl::test::reclaimed_among;
using saferecl::test::thread_group;

namespace {

constexpr std::size_t kThreads = 8;
constexpr std::size_t kHoldersPerThread = 32;
constexpr std::size_t kObjects = kThreads * kHoldersPerThread;

// Every object is protected by a hazard pointer of its own, made while the other threads
// make theirs; returns how many of them were reclaimed while still protected.
std::size_t reclaimed_while_protected_after_growth() {
  std::vector<published> sources(kObjects);
  atomic_latch start(kThreads);
  atomic_latch protecting(kThreads + 1);  // and this thread
  event retired_and_checked;
  thread_group threads;
  for (std::size_t t = 0; t < kThreads; ++t)
    threads.spawn([&, t] {
      start.arrive_and_wait();
      std::vector<sut::hazard_pointer> holders;
      holders.reserve(kHoldersPerThread);
      for (std::size_t i = 0; i < kHoldersPerThread; ++i) {
        holders.push_back(sut::make_hazard_pointer());
        holders.back().protect(sources[t * kHoldersPerThread + i].src);
      }
      protecting.arrive_and_wait();
      retired_and_checked.wait();
    });
  protecting.arrive_and_wait();
  std::vector<saferecl::test::object_log::id_t> ids;
  ids.reserve(kObjects);
  for (published& x : sources) ids.push_back(x.unlink_and_retire());
  saferecl::test::churn();
  const std::size_t reclaimed = reclaimed_among(ids);
  retired_and_checked.set();
  threads.join();
  return reclaimed;
}

}  // namespace

TEST_CASE("saferecl.hp.general/6 H7: hazard pointers made by many threads at once, as storage grows, all protect" *
          doctest::test_suite("core.concurrency")) {
  CHECK(reclaimed_while_protected_after_growth() == 0);
}

// Growth from an empty registry happens once per process; a record lost in that race
// shows only when the race goes wrong, and without a race detector nothing else shows it.
TEST_CASE("saferecl.hp.general/6 H7: hazard pointers made by many threads at once, as storage grows, all protect, in each of many fresh processes" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kProcesses = 16;
  const bool passed = saferecl::test::passes_in_fresh_processes(kProcesses, [] {
    const std::size_t reclaimed = reclaimed_while_protected_after_growth();
    if (reclaimed != 0)
      std::fprintf(stderr, "%zu of %zu protected objects were reclaimed\n", reclaimed, kObjects);
    return reclaimed == 0;
  });
  CHECK_MESSAGE(passed, "in a fresh process (of ", kProcesses,
                "), an object protected by a hazard pointer made during growth was reclaimed, or it failed (above)");
}
