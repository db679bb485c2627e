// <hazard_pointer>
//
// template<class T, class D = default_delete<T>>
// void hazard_pointer_obj_base<T, D>::retire(D d = D()) noexcept;
//   Effects: move-assigns d to deleter, thereby setting it as the deleter of x, then
//   retires x. May reclaim possibly-reclaimable objects.
// [saferecl.hp.general]/5: reclaiming x invokes its deleter with a pointer to x.
// [saferecl.hp.general]/6: an object is reclaimed only after it was retired, at most once.
//
// Custody while other threads reclaim (issue 39). Between "visible to another thread's
// reclamation pass" and "ready to be reclaimed" an implementation has windows: a retire
// that links x where other passes can take it before it has stored x's deleter; a thread's
// exit that hands its retired objects over while another thread's pass takes the list it
// hands them to. Here many threads retire objects with move-only, heap-owning deleters
// that carry their object's tag, while other threads churn (retire unprotected objects,
// the only portable way to make passes run). A retirer does nothing but retire, so a pass
// elsewhere that takes a retirer's latest object finds the retirer still retiring: a
// deleter stored after its object became visible is then either the default-constructed
// one (the tag check) or a write that races with the pass's invocation (TSan: nothing the
// retirer did after storing it reaches the pass). Exiting threads hand over long private lists while passes run.
//
// Only the objects that were reclaimed are judged (a hazard-pointer object may stay
// unreclaimed, [saferecl.hp.general]/7 bounds only their number): each ran its own
// deleter, once, with its own state; no deleter object was destroyed twice or invoked after
// its destruction.
//
// Relies on: churn to provoke passes; every thread bounded by counts, not time.
#include "support/test.hpp"
#include "support/custody.hpp"
#include "support/hp_checks.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

using saferecl::test::churn;
using saferecl::test::custody_set;
using saferecl::test::tagged_deleter;
using saferecl::test::thread_group;
using saferecl::test::tracked;
using saferecl::test::within_watchdog;

namespace {

struct tagged_object : sut::hazard_pointer_obj_base<tagged_object, tagged_deleter>, tracked {
  std::uint64_t tag = 0;
};

// Retires `n` tagged objects, each with a deleter carrying its tag.
void retire_tagged(custody_set& set, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    auto* p = new tagged_object;
    p->tag = p->id + 1;
    set.add(p);
    p->retire(tagged_deleter(p->tag));
  }
}

// The core checks on every reclaimed object (check_custody_of_the_reclaimed holds while
// some thread may still be reclaiming: a background reclaimer, NB-H4, NB-H50), and each
// invoked deleter was its own object's.
void check_custody(const std::vector<custody_set>& sets) {
  custody_set all;
  for (const custody_set& s : sets) all.merge(s);
  saferecl::test::check_custody_of_the_reclaimed(all);
  CHECK(saferecl::test::custody_wrong_tag().load() == 0);
  const std::size_t reclaimed = all.reclaimed();
  WARN_MESSAGE(reclaimed > 0, "nothing was reclaimed under churn: the checks were vacuous");
  MESSAGE("reclaimed ", reclaimed, " of ", all.size(), " tagged objects");
}

}  // namespace

TEST_CASE("saferecl.hp.base/7 H18: custody: objects retired on several threads while others run reclamation passes are reclaimed by their own move-only deleters" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kRetirers = 3;
  constexpr std::size_t kPassers = 2;
  const std::size_t per_retirer = saferecl::test::scaled(3000);
  std::vector<custody_set> sets(kRetirers);
  std::atomic<std::size_t> retiring{kRetirers};

  within_watchdog("threads retire tagged objects while others churn", [&](saferecl::test::watchdog& dog) {
    thread_group passers;
    for (std::size_t i = 0; i < kPassers; ++i)
      passers.spawn([&] {
        while (retiring.load(std::memory_order_acquire) != 0) {
          churn(saferecl::test::kChurnRound);
          dog.progressed();
        }
      });
    thread_group retirers;
    for (std::size_t r = 0; r < kRetirers; ++r)
      retirers.spawn([&, r] {
        retire_tagged(sets[r], per_retirer);
        retiring.fetch_sub(1, std::memory_order_acq_rel);
      });
  });
  churn();
  check_custody(sets);
}

TEST_CASE("saferecl.hp.general/6 H6: custody: objects that exiting threads hand over while others run reclamation passes are reclaimed at most once each" *
          doctest::test_suite("core.lifetime")) {
  // Waves of threads that each retire a list too short for a pass of its own (below every
  // known threshold) and exit, handing it over while two threads churn. The longer the
  // list, the longer an exit takes to hand it over: the window a concurrent pass can land in.
  constexpr std::size_t kPerWave = 2;
  constexpr std::size_t kPerThread = 1000;
  const std::size_t waves = saferecl::test::scaled(60);
  std::vector<custody_set> sets(waves * kPerWave);
  std::atomic<bool> stop{false};

  within_watchdog("threads retire, then exit, while two threads churn", [&](saferecl::test::watchdog& dog) {
    thread_group passers;
    for (int i = 0; i < 2; ++i)
      passers.spawn([&] {
        while (!stop.load(std::memory_order_acquire)) churn(saferecl::test::kChurnRound);
      });
    for (std::size_t wave = 0; wave < waves; ++wave) {
      thread_group exiting;
      for (std::size_t t = 0; t < kPerWave; ++t)
        exiting.spawn([&, i = wave * kPerWave + t] {
          retire_tagged(sets[i], kPerThread);
        });
      exiting.join();
      dog.progressed();
    }
    stop.store(true, std::memory_order_release);
  });
  churn();
  check_custody(sets);
}
