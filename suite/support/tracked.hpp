// Tracked test objects: an id in the object log, a canary, and the quarantine deleter.
//
// Readers check `alive()` on every object they reach: a reclaimed object's canary is
// poisoned, so premature reclamation is seen even in the unsanitized tier, without
// touching freed memory (the quarantine keeps it mapped). Test types declare a default
// constructor, so they are not aggregates (an aggregate would try to initialize the
// protected obj_base from outside; see requirements.md §2.9 item 4).
#pragma once

#include <sut.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "support/object_log.hpp"

namespace saferecl::test {

// Identity and canary; a base of every tracked test type.
struct tracked {
  tracked() = default;
  tracked(const tracked&) : tracked() {}  // a copy is a new object with its own id
  tracked& operator=(const tracked&) noexcept { return *this; }

  object_log::id_t id = objects().enroll();
  std::uint64_t canary = kAlive;

  bool alive() const noexcept { return canary == kAlive; }
};

// Records the reclamation, poisons the canary and hands the memory to the quarantine, which
// destroys and frees it later. Stateless, default-constructible, callable with any T*
// whose T derives from `tracked`.
struct quarantine_deleter {
  template <class T>
  void operator()(T* p) const noexcept {
    tracked& t = *p;
    objects().record_reclaim(t.id, p);
    t.canary = kPoison;
    graveyard().bury(p, [](void* memory) noexcept { delete static_cast<T*>(memory); });
  }
};

#if SUT_HAS_HAZARD_POINTER
struct hp_object : sut::hazard_pointer_obj_base<hp_object, quarantine_deleter>, tracked {
  hp_object() = default;
  explicit hp_object(int v) : value(v) {}
  int value = 0;
};

// The default amount of churn: far above every known reclamation threshold
// (max(1000, 2 x hazard pointers) in folly and libc++) for a test with few live holders.
inline constexpr std::size_t kDefaultChurn = 20'000;

// Retires `n` fresh, never-protected objects. Hazard pointers have no flush: this is the
// only portable way to make an implementation run reclamation passes (requirements §2.9/5).
void churn(std::size_t n = kDefaultChurn);

// How many churn objects have been reclaimed so far in this process.
std::size_t churn_reclaimed() noexcept;
#endif

// An <rcu> may lack rcu_obj_base (adapters/README.md): the harness builds without it, and a
// test that uses rcu_object is NOT BUILT on its own.
#ifndef SUT_HAS_RCU_OBJ_BASE
#define SUT_HAS_RCU_OBJ_BASE SUT_HAS_RCU
#endif

#if SUT_HAS_RCU_OBJ_BASE
struct rcu_object : sut::rcu_obj_base<rcu_object, quarantine_deleter>, tracked {
  rcu_object() = default;
  explicit rcu_object(int v) : value(v) {}
  int value = 0;
};
#elif SUT_HAS_RCU
// Declared, never defined: a test that makes one is NOT BUILT, and the message names what is missing.
struct rcu_object_without_rcu_obj_base;
using rcu_object = rcu_object_without_rcu_obj_base;
#endif

}  // namespace saferecl::test
