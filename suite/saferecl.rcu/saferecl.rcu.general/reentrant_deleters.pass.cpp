// <rcu>
//
// [saferecl.rcu.general]/6: scheduled evaluations may be evaluated concurrently with each
//   other; retire, rcu_retire, unlock and rcu_barrier may evaluate them on their caller.
// [reentrancy]/1: which library functions may be recursively reentered is
//   implementation-defined -- so a deleter that calls back into <rcu> is QoI (RS-12).
//
// Deleters that retire (chains), open regions, and synchronize. Relies on: every retire,
// unlock and rcu_barrier of the test, outside the deleters, happening outside any region
// (then no deleter can be waiting for a region of the thread that runs it); one
// rcu_barrier per chain link, because a barrier covers only what was scheduled before it.
// The chains are 20,000 links long (cascading reclamation, as linked structures do it): the
// bound is at most one rcu_barrier per generation, whatever the implementation's thresholds.
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <atomic>
#include <thread>

using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::within_watchdog;

namespace {

sut::rcu_domain& dom() noexcept { return sut::rcu_default_domain(); }

constexpr int kChain = 20'000;
std::atomic<int> g_links_run{0};  // namespace scope: deleters outlive no test local

// Barriers until `done` holds; each barrier covers the link scheduled before it, so kChain
// of them cover any chain of kChain links.
template <class Done>
void barrier_until(const char* what, Done done) {
  within_watchdog(what, [&] {
    for (int i = 0; i <= kChain && !done(); ++i) sut::rcu_barrier();
  });
}

struct chain_link_delete {
  int remaining = 0;
  void operator()(int* p) const noexcept {
    delete p;
    g_links_run.fetch_add(1);
    if (remaining > 0) sut::rcu_retire(new int(remaining), chain_link_delete{remaining - 1});
  }
};

struct chain_node;
struct chain_node_delete {
  void operator()(chain_node* p) const noexcept;
};
struct chain_node : sut::rcu_obj_base<chain_node, chain_node_delete> {
  explicit chain_node(int r) : remaining(r) {}
  int remaining;
};
void chain_node_delete::operator()(chain_node* p) const noexcept {
  const int remaining = p->remaining;
  delete p;
  g_links_run.fetch_add(1);
  if (remaining > 0) (new chain_node(remaining - 1))->retire();
}

}  // namespace

TEST_CASE("saferecl.rcu.general/6 RS-12: a deleter that calls rcu_retire builds a chain of 20,000 that completes within one rcu_barrier per link" *
          doctest::test_suite("qoi.semantic")) {
  sut::rcu_retire(new int(0), chain_link_delete{kChain - 1});
  barrier_until("a chain of rcu_retire calls from deleters", [] { return g_links_run == kChain; });
  CHECK(g_links_run == kChain);
}

TEST_CASE("saferecl.rcu.general/6 RS-12: a deleter that calls rcu_obj_base::retire builds a chain of 20,000 that completes within one rcu_barrier per link" *
          doctest::test_suite("qoi.semantic")) {
  (new chain_node(kChain - 1))->retire();
  barrier_until("a chain of retire calls from deleters", [] { return g_links_run == kChain; });
  CHECK(g_links_run == kChain);
}

TEST_CASE("saferecl.rcu.general/6 RS-12: a deleter may open and close regions" *
          doctest::test_suite("qoi.semantic")) {
  constexpr int kObjects = 100;
  std::atomic<int> ran{0};
  for (int i = 0; i < kObjects; ++i)
    sut::rcu_retire(new plain_object, [&ran](plain_object* p) noexcept {
      dom().lock();
      dom().lock();
      dom().unlock();
      dom().unlock();
      ran.fetch_add(1);
      delete p;
    });
  // From a thread that never entered a region: its first region is inside a deleter.
  std::thread fresh([] { sut::rcu_barrier(); });
  within_watchdog("rcu_barrier running deleters that open regions", [&] { fresh.join(); });
  CHECK(ran == kObjects);
}

TEST_CASE("saferecl.rcu.general/6 RS-12: a deleter may call rcu_synchronize when nothing retires inside a region" *
          doctest::test_suite("qoi.semantic")) {
  constexpr int kObjects = 10;
  std::atomic<int> ran{0};
  for (int i = 0; i < kObjects; ++i)
    sut::rcu_retire(new plain_object, [&ran](plain_object* p) noexcept {
      sut::rcu_synchronize();
      ran.fetch_add(1);
      delete p;
    });
  within_watchdog("rcu_barrier running deleters that synchronize", [] { sut::rcu_barrier(); });
  CHECK(ran == kObjects);
}

// The QoI half of RS-12: older evaluations are runnable when the thread opens a region,
// retires in it and unlocks a nested region. Running them there (from the retire or the
// inner unlock) would make a synchronizing deleter wait for the very region it runs in.
TEST_CASE("saferecl.rcu.general/6 RS-12: no deleter runs from a retire or an inner unlock inside the caller's region" *
          doctest::test_suite("qoi.semantic")) {
  std::atomic<int> ran{0};
  sut::rcu_retire(new plain_object, [&ran](plain_object* p) noexcept {
    sut::rcu_synchronize();
    ran.fetch_add(1);
    delete p;
  });
  within_watchdog("rcu_synchronize making the older deleter runnable", [] { sut::rcu_synchronize(); });

  auto* x = new plain_object;
  const auto id = x->id;
  within_watchdog("a retire and a nested lock-unlock inside a region", [x] {
    dom().lock();
    sut::rcu_retire(x, quarantine_deleter{});
    dom().lock();
    dom().unlock();
    dom().unlock();
  });
  within_watchdog("rcu_barrier after the region", [] { sut::rcu_barrier(); });
  CHECK(ran == 1);
  CHECK(objects().reclaim_count(id) == 1);
}
