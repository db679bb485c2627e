// <hazard_pointer>
//
// [saferecl.hp.general]/6: an object x is reclaimed only after it is retired, and at most
//   once (once reclaimed it is no longer possibly-reclaimable).
// [saferecl.hp.base]/7: retire may reclaim possibly-reclaimable objects; no other
//   operation of <hazard_pointer> is specified to reclaim.
//
// Relies on: churn being the only portable way to provoke reclamation, and on the object
// log counting every deleter run per object, whichever thread runs it.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

using saferecl::test::churn;
using saferecl::test::hp_object;
using saferecl::test::kChurnRound;
using saferecl::test::object_log;
using saferecl::test::objects;
using saferecl::test::published;
using saferecl::test::quarantine_deleter;
using saferecl::test::tracked;

TEST_CASE("saferecl.hp.general/6 H6: objects that were never retired are never reclaimed" *
          doctest::test_suite("core.semantic")) {
  constexpr std::size_t kObjects = 64;
  std::vector<std::unique_ptr<published>> never_retired;
  std::vector<sut::hazard_pointer> holders;
  for (std::size_t i = 0; i < kObjects; ++i) {
    never_retired.push_back(std::make_unique<published>());
    if (i % 2 == 0) {  // protected or not, it makes no difference
      holders.push_back(sut::make_hazard_pointer());
      holders.back().protect(never_retired.back()->src);
    }
  }
  holders.clear();
  churn();
  std::size_t reclaimed = 0;
  for (const auto& x : never_retired) reclaimed += objects().reclaimed(x->src.load()->id) ? 1 : 0;
  CHECK(reclaimed == 0);
}

TEST_CASE("saferecl.hp.general/6 H6: every retired object is reclaimed at most once" *
          doctest::test_suite("core.semantic")) {
  constexpr std::size_t kObjects = 5'000;
  std::vector<object_log::id_t> ids;
  for (std::size_t i = 0; i < kObjects; ++i) {
    auto* p = new hp_object;
    ids.push_back(p->id);
    p->retire();
    if (i % 500 == 0) churn(kChurnRound);
  }
  churn();
  std::size_t repeated = 0;
  for (object_log::id_t id : ids) repeated += objects().reclaim_count(id) > 1 ? 1 : 0;
  CHECK(repeated == 0);
}

TEST_CASE("saferecl.hp.general/6 H6: objects retired by exiting threads are reclaimed at most once while passes overlap" *
          doctest::test_suite("core.concurrency")) {
  // Threads that retire a few objects and exit hand their leftovers to whoever reclaims
  // next; two threads churn all the while, so passes over those leftovers overlap.
  const std::size_t waves = saferecl::test::scaled(30);
  constexpr std::size_t kPerThread = 300;
  std::atomic<bool> stop{false};
  std::vector<object_log::id_t> ids(waves * 2 * kPerThread);

  saferecl::test::within_watchdog("retiring threads exit while two threads churn", [&] {
    saferecl::test::thread_group reclaimers;
    for (int r = 0; r < 2; ++r)
      reclaimers.spawn([&] {
        while (!stop.load(std::memory_order_acquire)) churn(kChurnRound);
      });
    for (std::size_t wave = 0; wave < waves; ++wave) {
      saferecl::test::thread_group retirers;
      for (std::size_t t = 0; t < 2; ++t)
        retirers.spawn([&, first = (wave * 2 + t) * kPerThread] {
          for (std::size_t i = 0; i < kPerThread; ++i) {
            auto* p = new hp_object;
            ids[first + i] = p->id;
            p->retire();
          }
        });
    }
    stop.store(true, std::memory_order_release);
  });
  churn();
  std::size_t repeated = 0;
  for (object_log::id_t id : ids) repeated += objects().reclaim_count(id) > 1 ? 1 : 0;
  CHECK(repeated == 0);
  CHECK(objects().repeated_reclaims() == 0);
}

namespace {

// Set around each call of retire made by the test below; deleters check it.
thread_local bool t_inside_retire = false;
std::atomic<std::size_t> g_reclaimed_outside_retire{0};

struct retire_only_deleter {
  template <class T>
  void operator()(T* p) const noexcept {
    if (!t_inside_retire) g_reclaimed_outside_retire.fetch_add(1, std::memory_order_relaxed);
    quarantine_deleter{}(p);
  }
};

struct retire_only_object : sut::hazard_pointer_obj_base<retire_only_object, retire_only_deleter>,
                            tracked {
  retire_only_object() = default;
};

void marked_retire(retire_only_object* p) noexcept {
  t_inside_retire = true;
  p->retire();
  t_inside_retire = false;
}

}  // namespace

TEST_CASE("saferecl.hp.base/7 H19: in a single thread, deleters run only inside retire" *
          doctest::test_suite("strict.semantic")) {
  std::atomic<retire_only_object*> src{nullptr};
  const std::size_t reclaimed_before = objects().total_reclaims();
  for (int round = 0; round < 20; ++round) {
    // Objects become unprotected through every other operation of the holder...
    sut::hazard_pointer a = sut::make_hazard_pointer();
    sut::hazard_pointer b = sut::make_hazard_pointer();
    for (int i = 0; i < 100; ++i) {
      auto* p = new retire_only_object;
      src.store(p);
      a.protect(src);
      b.reset_protection(p);
      src.store(nullptr);
      marked_retire(p);
      a.swap(b);
      a.reset_protection();
      b = sut::make_hazard_pointer();
    }
    // ...and retire is given the chance to reclaim them.
    for (int i = 0; i < 1'000; ++i) marked_retire(new retire_only_object);
  }
  CHECK(g_reclaimed_outside_retire.load() == 0);
  WARN_MESSAGE(objects().total_reclaims() > reclaimed_before,
               "nothing was reclaimed: the check was vacuous");
}
