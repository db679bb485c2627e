// <hazard_pointer>
//
// The standard says nothing about fork (HS-18, qoi): after fork in a process that uses
// hazard pointers while another thread is busy with them, the child can make hazard
// pointers, protect, retire and reclaim -- on a new thread too -- and exit cleanly, and the
// parent carries on.
//
// Relies on: the child reporting through its exit status, and the parent judging the child on
// its progress in the time it could run (support/child_process.hpp: a child without progress
// is a TIMEOUT, with its evidence). Under a sanitizer the other
// thread is parked at the forks: the TSan and ASan runtimes of LLVM 14 do not lock their
// allocators around fork, so a child forked while another thread allocates can hang in
// its first allocation (seen under ASan: a futex wait in SizeClassAllocator64). Under TSan
// the child starts its thread too: the suite runs TSan with die_after_fork=0 (without it TSan
// ends such a child, its own limit, and the reports call that INCONCLUSIVE).
#include "support/test.hpp"
#include "support/child_process.hpp"
#include "support/hp_checks.hpp"
#include "support/sanitizers.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <thread>

using saferecl::test::churn;
using saferecl::test::hp_object;
using saferecl::test::objects;
using saferecl::test::published;
using saferecl::test::kUnderAsan;
using saferecl::test::kUnderTsan;

namespace {

// A sanitizer runtime whose allocator is not fork-safe (see above).
constexpr bool kParkAtFork = kUnderTsan || kUnderAsan;

// Protects an object, retires it, churns: true if it survived.
bool protection_works() {
  published x(1);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();
  churn();
  return !objects().reclaimed(p->id) && p->alive();
}

// Objects retired back to back with a cheap deleter, so that the retiring thread spends a
// large share of its time inside reclamation passes (walking what it retired, fencing,
// deleting): a fork then often lands mid-pass, where an implementation that holds a lock
// across its pass leaves the child that lock held. Not a slow deleter: a design that runs
// deleters outside its passes (one per later retire, say) would then spend its time outside
// them, and the forks would miss the lock (mutant MH-19 survived so).
struct plain_object : sut::hazard_pointer_obj_base<plain_object> {};

// A child does a few milliseconds of work; its parent judges a hang (child_passed).
int child_status() {
  bool ok = protection_works();
  std::thread([&] { ok = protection_works() && ok; }).join();
  return ok ? 0 : 1;
}

// Waits for the child (one without progress ends the test as TIMEOUT: support/child_process.hpp)
// and says how a failed child ended, so that a failure names its cause. True if it exited with
// status 0.
bool child_passed(pid_t child, int fork_index, saferecl::test::watchdog& waiting) {
  const int status = saferecl::test::wait_for_child(child, -1, saferecl::test::child_limit(), &waiting).status;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  if (WIFEXITED(status))
    MESSAGE("child of fork ", fork_index, " exited with status ", WEXITSTATUS(status),
            " (1: a protected object was reclaimed, or a sanitizer's report, above)");
  else
    MESSAGE("child of fork ", fork_index, " was killed by signal ", WTERMSIG(status));
  return false;
}

}  // namespace

TEST_CASE("saferecl.hp.general HS-18: after fork with another thread using hazard pointers, parent and child both work" *
          doctest::test_suite("qoi.lifetime")) {
  REQUIRE(protection_works());  // the parent has used hazard pointers before the fork
  // Many forks while the other thread retires objects, so that they land inside its
  // reclamation passes (where an implementation may hold a lock). Under a sanitizer that
  // thread is parked: 10 suffice.
  constexpr int kForks = kParkAtFork ? 10 : 100;
  saferecl::test::event started, done;
  int failed_children = 0;

  saferecl::test::within_watchdog("fork while another thread uses hazard pointers",
                                  [&](saferecl::test::watchdog& fork_done) {
    std::thread other([&] {
      published mine(2);
      sut::hazard_pointer h = sut::make_hazard_pointer();
      h.protect(mine.src);
      started.set();
      if (kParkAtFork) return done.wait();  // parked: see above
      while (!done.is_set()) (new plain_object)->retire();
    });
    started.wait();
    for (int i = 0; i < kForks && failed_children == 0; ++i) {  // one failure is enough
      const pid_t child = saferecl::test::fork_child();
      if (child == 0) std::_Exit(child_status());
      if (child < 0 || !child_passed(child, i, fork_done)) ++failed_children;
      fork_done.progressed();
    }
    done.set();
    other.join();
  });
  CHECK(failed_children == 0);
  CHECK(protection_works());
}
