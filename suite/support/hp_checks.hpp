// Hazard-pointer checks shared by the saferecl.hp battery.
//
// A test learns the fate of a retired object only from the object log (it must not touch
// the object unless it still protects it), and it can provoke reclamation only by churn.
// These helpers put those two rules into a few words:
//   published          an object reachable through an atomic source, as in a data
//                      structure; unlink_and_retire() is the only way it is retired
//   intact_after_churn for an object the caller protects: churn, then not reclaimed and
//                      canary intact (the portable, core-tier check)
//   churn_until        churn in rounds until a condition holds or a budget is spent (the
//                      qoi tier's "eventually", cheap for implementations that reclaim fast)
//   reclaimed_among    how many of some watched objects have been reclaimed
//   protected_and_retired
//                      the qoi tier's aggregate form: many objects, each protected by its
//                      own holder and retired; the test ends the epochs and counts
#pragma once

#include <atomic>
#include <cstddef>
#include <span>
#include <vector>

#include "support/object_log.hpp"
#include "support/tracked.hpp"

namespace saferecl::test {

#if SUT_HAS_HAZARD_POINTER

// An hp_object published in `src`. Until it is unlinked and retired the source owns it
// (and deletes it if the test never retires it, so the leak checker stays quiet).
class published {
 public:
  explicit published(int value = 0) : published(new hp_object(value)) {}
  explicit published(hp_object* adopted) : src(adopted) {}
  published(const published&) = delete;
  published& operator=(const published&) = delete;
  ~published() { delete src.load(std::memory_order_relaxed); }

  // Unlinks first, then retires: [saferecl.hp.general]/6 only covers unlinked objects.
  // Returns the id, the one handle a test keeps on a retired object.
  object_log::id_t unlink_and_retire() noexcept {
    hp_object* p = src.exchange(nullptr, std::memory_order_acq_rel);
    const object_log::id_t id = p->id;
    p->retire(quarantine_deleter{});  // not retire(): the harness needs no default argument
    return id;
  }

  std::atomic<hp_object*> src;
};

// For an object the caller protects (so reading it is allowed even though it is retired):
// after churn it has not been reclaimed and its canary is intact.
inline bool intact_after_churn(const hp_object& p, std::size_t n = kDefaultChurn) {
  churn(n);
  return !objects().reclaimed(p.id) && p.alive();
}

inline std::size_t reclaimed_among(std::span<const object_log::id_t> ids) noexcept {
  std::size_t n = 0;
  for (object_log::id_t id : ids) n += objects().reclaimed(id) ? 1 : 0;
  return n;
}

// The size of one churn round of churn_until.
inline constexpr std::size_t kChurnRound = 1'000;

// Churns in rounds until `done()` holds or `budget` objects have been retired; returns
// done(). Only the qoi tier may require that it returns true.
template <class Done>
bool churn_until(Done done, std::size_t budget = 10 * kDefaultChurn) {
  for (std::size_t spent = 0; !done() && spent < budget; spent += kChurnRound) churn(kChurnRound);
  return done();
}

// `n` objects, each protected by a holder of its own (all alive at once, so no epoch shares
// a hazard pointer with another) and then retired. A qoi test ends the epochs in the way
// it checks, then asks whether the objects are eventually reclaimed.
struct protected_and_retired {
  explicit protected_and_retired(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      published x(static_cast<int>(i));
      holders.push_back(sut::make_hazard_pointer());
      pointers.push_back(holders.back().protect(x.src));
      ids.push_back(x.unlink_and_retire());
    }
  }
  std::size_t reclaimed() const noexcept { return reclaimed_among(ids); }
  bool all_reclaimed() const noexcept { return reclaimed() == ids.size(); }

  std::vector<sut::hazard_pointer> holders;
  std::vector<hp_object*> pointers;  // readable only while their epochs last
  std::vector<object_log::id_t> ids;
};

#endif

}  // namespace saferecl::test
