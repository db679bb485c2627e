// <hazard_pointer>
//
// [saferecl.hp.general]/7: the number of possibly-reclaimable objects is bounded; so once
//   the epochs protecting retired objects have ended, churn eventually reclaims them. The
//   standard bounds only how many, never which, so this is quality of implementation, and
//   it is checked in aggregate: 64 objects, each with an epoch of its own, ended in the
//   way under test, then churn until all of them are reclaimed (within a generous budget).
//
// Relies on: protection first being confirmed (no object reclaimed while protected), so
// reclamation afterwards is due to the epochs having ended; churn being the only portable
// way to provoke reclamation.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <atomic>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

using saferecl::test::churn;
using saferecl::test::churn_until;
using saferecl::test::hp_object;
using saferecl::test::object_log;
using saferecl::test::objects;
using saferecl::test::protected_and_retired;
using saferecl::test::published;
using saferecl::test::quarantine_deleter;
using saferecl::test::reclaimed_among;
using saferecl::test::tracked;

namespace {

constexpr std::size_t kEpochs = 64;

// Ends every epoch of a protected_and_retired set with `end`; every object must then be
// reclaimed under churn.
template <class EndEpochs>
void check_reclaimed_once_epochs_end(EndEpochs end) {
  protected_and_retired set(kEpochs);
  churn();
  REQUIRE(set.reclaimed() == 0);  // the core guarantee, before the epochs end
  end(set);
  INFO("reclaimed ", set.reclaimed(), " of ", kEpochs);
  CHECK(churn_until([&] { return set.all_reclaimed(); }));
}

// The same, ending each epoch through a call on its holder.
template <class EndEpoch>
void check_reclaimed_once_each_epoch_ends(EndEpoch end) {
  check_reclaimed_once_epochs_end([&](protected_and_retired& set) {
    for (sut::hazard_pointer& h : set.holders) end(h);
  });
}

}  // namespace

TEST_CASE("saferecl.hp.holder.ctor/3 H24: qoi: objects whose protecting hazard_pointers were destroyed are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  check_reclaimed_once_epochs_end([](protected_and_retired& set) { set.holders.clear(); });
}

TEST_CASE("saferecl.hp.holder.ctor/5 H25: qoi: objects whose holders were move-assigned over are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  check_reclaimed_once_each_epoch_ends([](sut::hazard_pointer& h) { h = sut::make_hazard_pointer(); });
  check_reclaimed_once_each_epoch_ends([](sut::hazard_pointer& h) { h = sut::hazard_pointer{}; });
}

TEST_CASE("saferecl.hp.holder.mem/12 H33: qoi: objects whose epochs reset_protection() ended are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  check_reclaimed_once_each_epoch_ends([](sut::hazard_pointer& h) { h.reset_protection(); });
  check_reclaimed_once_each_epoch_ends([](sut::hazard_pointer& h) { h.reset_protection(nullptr); });
}

TEST_CASE("saferecl.hp.holder.mem/9 H32: qoi: objects whose epochs reset_protection(ptr) ended are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  check_reclaimed_once_each_epoch_ends(
      [](sut::hazard_pointer& h) { h.reset_protection(static_cast<hp_object*>(nullptr)); });
  published elsewhere(1);
  check_reclaimed_once_each_epoch_ends(
      [&](sut::hazard_pointer& h) { h.reset_protection(elsewhere.src.load()); });
}

TEST_CASE("saferecl.hp.holder.mem/2 H28: qoi: objects whose holders protect something else are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  published elsewhere(1);
  check_reclaimed_once_each_epoch_ends([&](sut::hazard_pointer& h) { h.protect(elsewhere.src); });
}

TEST_CASE("saferecl.hp.holder.mem/2 H28: qoi: objects whose holders then protect a null source are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  const std::atomic<hp_object*> null_source{nullptr};
  check_reclaimed_once_each_epoch_ends([&](sut::hazard_pointer& h) { h.protect(null_source); });
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: qoi: objects whose holders' try_protect succeeded on something else are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  published elsewhere(1);
  check_reclaimed_once_each_epoch_ends([&](sut::hazard_pointer& h) {
    hp_object* other = elsewhere.src.load();
    h.try_protect(other, elsewhere.src);
  });
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: qoi: objects whose holders then try_protect from a null source are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  const std::atomic<hp_object*> null_source{nullptr};
  check_reclaimed_once_each_epoch_ends([&](sut::hazard_pointer& h) {
    hp_object* none = nullptr;
    h.try_protect(none, null_source);
  });
}

TEST_CASE("saferecl.hp.holder.mem/14 H35: qoi: objects whose hazard pointers were swapped away and destroyed are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  check_reclaimed_once_each_epoch_ends([](sut::hazard_pointer& h) {
    sut::hazard_pointer new_owner = sut::make_hazard_pointer();
    h.swap(new_owner);
  });
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: qoi: a failed try_protect leaves its holder associated with neither object" *
          doctest::test_suite("qoi.semantic")) {
  // Each holder protects a retired object and then fails a try_protect from it to a new
  // object: steps 2-4 associate it with the old object, load the new one and reset. Both
  // objects, retired, must then be reclaimed.
  std::vector<object_log::id_t> fresh_ids;
  check_reclaimed_once_epochs_end([&](protected_and_retired& set) {
    for (std::size_t i = 0; i < kEpochs; ++i) {
      published fresh(1);
      hp_object* ptr = set.pointers[i];
      CHECK_FALSE(set.holders[i].try_protect(ptr, fresh.src));
      fresh_ids.push_back(fresh.unlink_and_retire());
    }
  });
  CHECK(churn_until([&] { return saferecl::test::reclaimed_among(fresh_ids) == kEpochs; }));
}

namespace {

// An object whose deleter retires a child object, and the ids of those children: guarded
// by a mutex the deleters take, and never destroyed (a deleter may run during exit).
struct children_log {
  std::mutex mutex;
  std::vector<object_log::id_t> ids;
};
children_log& children() {
  static children_log* const log = new children_log;
  return *log;
}

struct parent_object;
struct retire_a_child {
  void operator()(parent_object* p) const noexcept;
};
struct parent_object : sut::hazard_pointer_obj_base<parent_object, retire_a_child>, tracked {
  parent_object() = default;
};
void retire_a_child::operator()(parent_object* p) const noexcept {
  quarantine_deleter{}(p);
  auto* child = new hp_object;
  {
    std::lock_guard lock(children().mutex);
    children().ids.push_back(child->id);
  }
  child->retire();
}

}  // namespace

TEST_CASE("saferecl.hp.general/7 H38: qoi: objects retired by exited threads, and those their deleters retire, are reclaimed by later churn" *
          doctest::test_suite("qoi.concurrency")) {
  // Threads retire a few thousand objects each and exit one after the other, so whatever
  // they leave behind piles up past the usual thresholds (folly's 1,000, the reference's
  // 4,096) while they exit; the deleters that then run retire children, possibly during a
  // thread's own exit.
  constexpr std::size_t kThreads = 4;
  constexpr std::size_t kPerThread = 2'500;
  std::vector<object_log::id_t> parents(kThreads * kPerThread);
  children();  // made here, not in a deleter
  saferecl::test::within_watchdog("threads retire and exit", [&] {
    for (std::size_t t = 0; t < kThreads; ++t)
      std::thread([&, first = t * kPerThread] {
        for (std::size_t i = 0; i < kPerThread; ++i) {
          auto* p = new parent_object;
          parents[first + i] = p->id;
          p->retire();
        }
      }).join();
  });
  const auto all_reclaimed = [&] {
    if (reclaimed_among(parents) != parents.size()) return false;
    std::lock_guard lock(children().mutex);
    return reclaimed_among(children().ids) == parents.size();
  };
  CHECK(churn_until(all_reclaimed));
  CHECK(objects().repeated_reclaims() == 0);
}
