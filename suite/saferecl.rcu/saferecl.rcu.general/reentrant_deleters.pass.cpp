// <rcu>
//
// [saferecl.rcu.general]/6: scheduled evaluations may be evaluated concurrently with each
//   other; retire, rcu_retire, unlock and rcu_barrier may evaluate them on their caller.
// [reentrancy]/1: which library functions may be recursively reentered is
//   implementation-defined -- so a deleter that calls back into <rcu> is QoI (RS-12).
//
// Deleters that retire (chains), open regions, and synchronize. Relies on: every retire,
// unlock and rcu_barrier of the test, outside the deleters, happening outside any region
// (then no deleter can be waiting for a region of the thread that runs it).
// Chains (cascading reclamation, as linked structures do it) aim at 20,000 links. The bound
// is one rcu_barrier per generation: a barrier completes the link scheduled before it
// ([saferecl.rcu.domain.func]/5), so each barrier must advance an unfinished chain by at
// least one link, whatever the implementation's thresholds. Every link needs a grace period
// of its own, so the chain's length is a matter of the implementation's grace-period
// latency: when a time budget runs out, the deleters stop extending the chain (a QoI note,
// not a failure) and the test drains what was made.
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <atomic>
#include <chrono>
#include <thread>

using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::within_watchdog;

namespace {

sut::rcu_domain& dom() noexcept { return sut::rcu_default_domain(); }

constexpr int kChain = 20'000;

// How long the chain may keep growing before the test stops extending it (a qoi note, not a
// failure): the reference makes all 20,000 links in about 1 s under TSan. Its mutants die on
// the first barriers or hang in one, so the quick profile's 5 s buys no less detection than
// the 20 s per unit of scale of the long profiles.
std::chrono::milliseconds chain_budget() {
  return saferecl::test::stress_duration(std::chrono::seconds(5), std::chrono::seconds(20));
}

// Namespace scope: deleters outlive no test local. One chain at a time.
std::atomic<int> g_links_made{0};
std::atomic<int> g_links_run{0};
std::atomic<bool> g_chain_ended{false};     // the last link's deleter ran
std::atomic<bool> g_stop_extending{false};  // the budget ran out: the next link is the last

void start_chain() {
  g_links_made = 1;
  g_links_run = 0;
  g_chain_ended = false;
  g_stop_extending = false;
}

// A link's deleter decides whether the chain goes on: it makes the next link unless this
// was the last one or the budget ran out.
bool extend_chain(int remaining) noexcept {
  if (remaining == 0 || g_stop_extending.load()) return false;
  g_links_made.fetch_add(1);
  return true;
}

// The deleter's last step, after it retired the next link: a barrier that waited for this
// deleter therefore finds the next link scheduled before it returns.
void link_done(bool extended) noexcept {
  g_links_run.fetch_add(1);
  if (!extended) g_chain_ended = true;
}

// Barriers until the chain ended, checking that each one advanced it.
void drain_chain(const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + chain_budget();
  int barriers = 0;
  bool stalled = false;  // a barrier returned with no further link run
  within_watchdog(what, [&](saferecl::test::watchdog& barrier_returned) {
    while (!g_chain_ended.load() && !stalled) {
      if (std::chrono::steady_clock::now() > deadline) g_stop_extending = true;
      const int before = g_links_run.load();
      sut::rcu_barrier();
      barrier_returned.progressed();
      ++barriers;
      stalled = !g_chain_ended.load() && g_links_run.load() == before;
    }
  });
  CHECK_MESSAGE(!stalled, "rcu_barrier returned while the chain link scheduled before it had "
                          "not run (barrier ", barriers, ", ", g_links_run.load(), " links run)");
  CHECK(g_links_run.load() == g_links_made.load());
  if (g_stop_extending.load())
    MESSAGE("[saferecl] qoi note: the chain stopped at ", g_links_made.load(), " of ", kChain,
            " links when its ", chain_budget().count() / 1000.0, " s budget ran out (", barriers,
            " barriers, each advanced it)");
}

struct chain_link_delete {
  int remaining = 0;
  void operator()(int* p) const noexcept {
    delete p;
    const bool extended = extend_chain(remaining);
    if (extended) sut::rcu_retire(new int(remaining), chain_link_delete{remaining - 1});
    link_done(extended);
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
  const bool extended = extend_chain(remaining);
  if (extended) (new chain_node(remaining - 1))->retire();
  link_done(extended);
}

}  // namespace

TEST_CASE("saferecl.rcu.general/6 RS-12: a deleter that calls rcu_retire builds a chain of 20,000 that completes within one rcu_barrier per link" *
          doctest::test_suite("qoi.semantic")) {
  start_chain();
  sut::rcu_retire(new int(0), chain_link_delete{kChain - 1});
  drain_chain("a chain of rcu_retire calls from deleters");
}

TEST_CASE("saferecl.rcu.general/6 RS-12: a deleter that calls rcu_obj_base::retire builds a chain of 20,000 that completes within one rcu_barrier per link" *
          doctest::test_suite("qoi.semantic")) {
  start_chain();
  (new chain_node(kChain - 1))->retire();
  drain_chain("a chain of retire calls from deleters");
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
// More evaluations follow the synchronizing one, so that an implementation that gathers a
// thread's retires in batches before its executors see them has passed it on.
TEST_CASE("saferecl.rcu.general/6 RS-12: no deleter runs from a retire or an inner unlock inside the caller's region" *
          doctest::test_suite("qoi.semantic")) {
  constexpr int kLaterPlain = 255;
  std::atomic<int> ran{0};
  sut::rcu_retire(new plain_object, [&ran](plain_object* p) noexcept {
    sut::rcu_synchronize();
    ran.fetch_add(1);
    delete p;
  });
  for (int i = 0; i < kLaterPlain; ++i) sut::rcu_retire(new plain_object, quarantine_deleter{});
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
