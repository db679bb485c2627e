// <rcu>
//
// void lock() noexcept;    Effects: opens a region of RCU protection.
// void unlock() noexcept;  Effects: closes the most recently opened unclosed region.
//
// Nothing restricts when a thread may call them: a thread_local object's destructor, run
// while the thread exits, may open a region and retire in it (RS-19), whether or not the
// thread used the facility before -- whatever per-thread state the implementation keeps
// must survive or be rebuilt. Relies on: the thread being joined before the synchronize
// and the barrier; the destructor closing every region it opens.
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <thread>

using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::within_watchdog;

namespace {

sut::rcu_domain& dom() noexcept { return sut::rcu_default_domain(); }

// Retires its object inside a (nested) region when the owning thread exits.
struct retire_at_thread_exit {
  plain_object* object;
  ~retire_at_thread_exit() {
    dom().lock();
    dom().lock();
    dom().unlock();
    sut::rcu_retire(object, quarantine_deleter{});
    dom().unlock();
  }
};

void retire_when_this_thread_exits(plain_object* p) {
  thread_local retire_at_thread_exit hook{p};
}

void check_exit_hook(bool used_rcu_before) {
  auto* p = new plain_object;
  const auto id = p->id;
  std::thread worker([=] {
    if (used_rcu_before) {
      dom().lock();
      dom().unlock();
    }
    retire_when_this_thread_exits(p);
  });
  within_watchdog("a thread exiting through its thread_local destructor", [&] { worker.join(); });
  within_watchdog("rcu_synchronize after the thread exited", [] { sut::rcu_synchronize(); });
  within_watchdog("rcu_barrier after the thread exited", [] { sut::rcu_barrier(); });
  CHECK(objects().reclaim_count(id) == 1);
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.members/1 R23: a thread_local destructor may lock, retire and unlock" *
          doctest::test_suite("core.lifetime")) {
  check_exit_hook(/*used_rcu_before=*/true);
}

TEST_CASE("saferecl.rcu.domain.members/1 R23: a thread's first region may be in a thread_local destructor" *
          doctest::test_suite("core.lifetime")) {
  check_exit_hook(/*used_rcu_before=*/false);
}
