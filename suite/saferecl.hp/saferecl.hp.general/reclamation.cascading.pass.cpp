// <hazard_pointer>
//
// [saferecl.hp.general]/7: the number of retired, possibly-reclaimable objects is bounded.
//   A linked structure is often reclaimed by deleters that retire the next node, so each
//   reclamation makes another object possibly-reclaimable. The wording bounds a count, not
//   a delay, so draining such a chain promptly is quality of implementation (qoi).
//
// The bound checked here scales with the work and not with any implementation's
// threshold: a chain of N links whose deleters retire the next must be fully reclaimed
// within kBaseChurn + kChurnPerLink x N further unrelated retires, i.e. a fixed amount of
// churn to start plus at most kChurnPerLink per generation on average. A design that
// re-scans what its deleters retired (or reclaims at every retire, or on a background
// thread) drains the chain in the first pass that reaches it; one that waits for a whole
// new threshold of retires per generation (about 1,000 in folly-like designs) needs about
// N x 1,000 retires, 20 million for this chain, which users see as a leak.
//
// A reclaimer on a thread of its own is not driven by the test's retires: once the budget
// is spent, the chain may finish draining without churn while it keeps making progress.
//
// Relies on: churn being the only portable way to provoke reclamation; deleters that
// count with atomics (they may run on any thread); the watchdog turning a deadlock in a
// re-entrant deleter into a failure. [reentrancy]/1 makes deleters that call the library
// implementation-defined, another reason these tests are qoi.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>

using saferecl::test::churn_until;
using saferecl::test::kDefaultChurn;
using saferecl::test::objects;
using saferecl::test::quarantine_deleter;
using saferecl::test::tracked;
using saferecl::test::within_watchdog;

namespace {

constexpr std::size_t kLinks = 20'000;
constexpr std::size_t kChurnPerLink = 8;
constexpr std::size_t kBaseChurn = 10 * kDefaultChurn;
constexpr std::size_t kChurnBudget = kBaseChurn + kChurnPerLink * kLinks;

std::atomic<std::size_t> g_links_reclaimed{0};

// --- each link's deleter retires the next link -------------------------------------------

struct plain_link;
struct retire_next_link {
  void operator()(plain_link* p) const noexcept;
};
struct plain_link : sut::hazard_pointer_obj_base<plain_link, retire_next_link>, tracked {
  plain_link* next = nullptr;
};
void retire_next_link::operator()(plain_link* p) const noexcept {
  plain_link* next = p->next;
  quarantine_deleter{}(p);
  g_links_reclaimed.fetch_add(1, std::memory_order_relaxed);
  if (next != nullptr) next->retire();
}

// --- each link's deleter protects the next link, unlinks it and retires it while still
// protecting it; the protection ends when the deleter's hazard_pointer is destroyed -----

struct guarded_link;
struct protect_and_retire_next {
  void operator()(guarded_link* p) const noexcept;
};
struct guarded_link : sut::hazard_pointer_obj_base<guarded_link, protect_and_retire_next>, tracked {
  std::atomic<guarded_link*> next{nullptr};
};
void protect_and_retire_next::operator()(guarded_link* p) const noexcept {
  sut::hazard_pointer h = sut::make_hazard_pointer();
  guarded_link* next = h.protect(p->next);
  p->next.store(nullptr, std::memory_order_relaxed);
  quarantine_deleter{}(p);
  g_links_reclaimed.fetch_add(1, std::memory_order_relaxed);
  if (next != nullptr) next->retire();  // protected until h goes out of scope
}

// After the churn budget: a reclaimer that runs on a thread of its own drains the chain
// without further retires (the budget counts this thread's retires, not its work), so the
// chain may still drain within kDrain, links being reclaimed at most kStill apart, both in
// time the process could run. A design that needs retires to advance makes no progress
// here, and one that advances a link per timer tick does not finish: both fail as before.
bool drains_without_churn(saferecl::test::watchdog& dog) {
  constexpr auto kStill = std::chrono::seconds(2);
  constexpr auto kDrain = std::chrono::seconds(20);
  saferecl::test::liveness_clock liveness(saferecl::test::liveness_clock::owner::works);
  std::size_t seen = g_links_reclaimed.load(std::memory_order_relaxed);
  const saferecl::test::liveness_reading start = liveness.now();
  saferecl::test::liveness_reading since = start;
  while (seen != kLinks) {
    if (liveness.expired(start, kDrain)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the library's thread runs
    const std::size_t now = g_links_reclaimed.load(std::memory_order_relaxed);
    if (now != seen) {
      seen = now;
      since = liveness.now();
      dog.progressed();
    } else if (liveness.expired(since, kStill)) {
      return false;
    }
  }
  return true;
}

// Builds a chain of kLinks links (head first), retires its head, then churns in rounds
// until every link was reclaimed or the budget is spent.
template <class Link, class Attach>
void check_chain_drains(const char* what, Attach attach) {
  g_links_reclaimed.store(0);
  Link* head = nullptr;
  for (std::size_t i = 0; i < kLinks; ++i) {
    auto* link = new Link;
    attach(*link, head);
    head = link;
  }
  head->retire();
  within_watchdog(what, [](saferecl::test::watchdog& dog) {
    const bool churned = churn_until(
        [] { return g_links_reclaimed.load(std::memory_order_relaxed) == kLinks; }, kChurnBudget);
    const std::size_t after_churn = g_links_reclaimed.load();
    dog.progressed();
    const bool drained = churned || drains_without_churn(dog);
    INFO("links reclaimed: ", after_churn, " of ", kLinks, " after up to ", kChurnBudget,
         " further retires (", kBaseChurn, " + ", kChurnPerLink, " per link), ",
         g_links_reclaimed.load(), " once no more links were reclaimed without churn");
    CHECK(drained);
  });
  CHECK(objects().repeated_reclaims() == 0);
}

}  // namespace

TEST_CASE("saferecl.hp.general/7 H9: qoi: a 20,000-link chain whose deleters retire the next link drains within churn that grows by at most 8 per link" *
          doctest::test_suite("qoi.semantic")) {
  check_chain_drains<plain_link>("draining a chain whose deleters retire the next link",
                                 [](plain_link& link, plain_link* next) { link.next = next; });
}

TEST_CASE("saferecl.hp.general/7 H9: qoi: a 20,000-link chain whose deleters protect, unlink and retire the next link drains within churn that grows by at most 8 per link" *
          doctest::test_suite("qoi.semantic")) {
  check_chain_drains<guarded_link>(
      "draining a chain whose deleters protect and retire the next link",
      [](guarded_link& link, guarded_link* next) { link.next.store(next, std::memory_order_relaxed); });
}
