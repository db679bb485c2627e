// <rcu>
//
// [saferecl.rcu.general]: nothing is said about fork. A process that forks after using the
// facility -- even while another of its threads is inside a region -- should leave the
// child (which has only the forking thread) able to lock, retire, synchronize and run
// barriers, and leave the parent unharmed (RS-18). QoI.
//
// Relies on: the child creating no thread (it is a copy of a multi-threaded process); each
// parent judging its child on its progress in the time it could run
// (support/child_process.hpp), the
// test's parent under the watchdog; nested forks from a child, which is single-threaded.
#include "support/child_process.hpp"
#include "support/rcu_objects.hpp"
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::region_holder;
using saferecl::test::within_watchdog;

namespace {

constexpr int kNestedForks = 3;

// Uses every operation of the facility; true when the retired object was reclaimed once.
bool exercise_rcu() {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  dom.lock();
  dom.unlock();
  auto* p = new plain_object;
  const auto id = p->id;
  sut::rcu_retire(p, quarantine_deleter{});
  sut::rcu_synchronize();
  sut::rcu_barrier();
  return objects().reclaim_count(id) == 1;
}

// The exit status of a child that exercises the facility, forks `depth - 1` more levels
// below itself, and reports 0 only if everything below it succeeded. `waiting` is the
// test's watchdog (in the test's process only).
int fork_and_exercise(int depth, saferecl::test::watchdog* waiting = nullptr) {
  const pid_t pid = saferecl::test::fork_child();
  if (pid == 0) {
    int status = exercise_rcu() ? 0 : 1;
    if (status == 0 && depth > 1) status = fork_and_exercise(depth - 1);
    std::_Exit(status);
  }
  if (pid < 0) return -1;
  const int status = saferecl::test::wait_for_child(pid, -1, saferecl::test::child_limit(), waiting).status;
  if (!WIFEXITED(status)) {
    std::fprintf(stderr, "[saferecl] a forked child died of signal %d\n", WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("saferecl.rcu.general/1 RS-18: after fork the child and the parent can still use rcu" *
          doctest::test_suite("qoi.lifetime")) {
  REQUIRE(exercise_rcu());
  sut::rcu_retire(new plain_object, quarantine_deleter{});  // pending across the fork
  region_holder reader;                                    // inside a region at the fork
  int child_status = -1;
  within_watchdog("nested forked children using rcu", [&](saferecl::test::watchdog& waiting) {
    child_status = fork_and_exercise(kNestedForks, &waiting);
  });
  CHECK(child_status == 0);
  reader.release();
  reader.join();
  within_watchdog("the parent using rcu after fork", [] { CHECK(exercise_rcu()); });
}
