// <rcu>
//
// template<class T, class D = default_delete<T>>
//   void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain());
//   Effects: ... schedules the evaluation of d1(p) in the domain dom; may evaluate
//   scheduled evaluations in dom.
// [saferecl.rcu.general]/5: the evaluation waits for every region whose start the retire
//   does not strongly happen before -- including the retiring thread's own open region.
//
// No precondition forbids retiring inside a region, so it must neither block on the
// caller's own region nor run the deleter in it. Relies on: rcu_barrier only after the
// region closed, on a thread in no region; enough retires (kMany) to cross any batch
// threshold or pending-count trigger an implementation may have.
#include "support/rcu_objects.hpp"
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <vector>

using saferecl::test::blocking_call;
using saferecl::test::object_log;
using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::region_holder;
using saferecl::test::within_watchdog;

namespace {

constexpr int kMany = 3000;

std::vector<object_log::id_t> retire_many(int n) {
  std::vector<object_log::id_t> ids;
  for (int i = 0; i < n; ++i) {
    auto* p = new plain_object(i);
    ids.push_back(p->id);
    sut::rcu_retire(p, quarantine_deleter{});
  }
  return ids;
}

int reclaimed(const std::vector<object_log::id_t>& ids) {
  int n = 0;
  for (auto id : ids) n += objects().reclaim_count(id);
  return n;
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/8 R43: rcu_retire inside the caller's own region returns and defers the deleter to the unlock" *
          doctest::test_suite("core.semantic")) {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  std::vector<object_log::id_t> ids;
  dom.lock();
  within_watchdog("retiring inside one's own region", [&] { ids = retire_many(kMany); });
  const int reclaimed_inside = reclaimed(ids);
  dom.unlock();
  within_watchdog("rcu_barrier after the region", [] { sut::rcu_barrier(); });
  CHECK(reclaimed_inside == 0);
  CHECK(reclaimed(ids) == kMany);
}

// RS-13: the retiring reader and a synchronizer waiting for it must not deadlock, e.g. by a
// retire that waits for a grace period once a batch fills.
TEST_CASE("saferecl.rcu.domain.func/8 R43: rcu_retire inside a region while another thread waits in rcu_synchronize" *
          doctest::test_suite("core.concurrency")) {
  std::vector<object_log::id_t> ids;
  region_holder reader(region_holder::lock_default, [&] {
    ids = retire_many(kMany);
    region_holder::unlock_default();
  });
  blocking_call sync("rcu_synchronize waiting for the retiring reader", [] { sut::rcu_synchronize(); });
  CHECK(sync.still_blocked());
  reader.release();  // the reader now retires, then unlocks
  reader.join();
  sync.join();
  within_watchdog("rcu_barrier after the reader left", [] { sut::rcu_barrier(); });
  CHECK(reclaimed(ids) == kMany);
}
