// sut.hpp for the `xenium` adapter: <hazard_pointer> over xenium's hazard_pointer reclaimer
// and the read side of <rcu> over its epoch_based reclaimer (header-only library).
//
// How xenium's concepts map onto the standard's:
//
//   standard                          xenium
//   --------------------------------  ----------------------------------------------------
//   hazard_pointer_obj_base<T,D>      hazard_pointer<...>::enable_concurrent_ptr<T, 0, D>
//                                     (the deleter is stored in the object; an empty D is
//                                     default-constructed again when it runs)
//   hazard_pointer                    one hazard-pointer slot of the creating thread, held by
//                                     a guard_ptr<U> for the U last protected (xenium's guards
//                                     are typed; the standard's hazard_pointer is not)
//   make_hazard_pointer()             a guard_ptr holding a never-retired anchor object: it
//                                     takes a slot (dynamic_strategy: grows, may throw
//                                     bad_alloc) and keeps it reserved while "unassociated"
//   reset_protection(p)               release the slot, then guard_ptr<T>(p): the same slot
//                                     comes straight back from the thread's free list, and
//                                     xenium publishes p (store + seq_cst fence)
//   try_protect / protect             the standard's own definitions over reset_protection
//                                     (xenium's acquire() needs its concurrent_ptr, not
//                                     std::atomic<T*>)
//   obj_base::retire(d)               guard_ptr<T>(this).reclaim(d): the thread's retire list,
//                                     scanned at 2 x (active hazard pointers) + 100 entries
//   rcu_domain::lock / unlock         epoch_based<>: enter / leave a critical region (held by
//                                     a guard on an anchor object; nesting counted here)
//   rcu_obj_base::retire / rcu_retire guard_ptr<T>(p).reclaim(d) on epoch_based<> (rcu_retire:
//                                     a heap node {p, d})
//   rcu_synchronize, rcu_barrier      none: xenium has no blocking grace period and no way to
//                                     wait for deleters. A test that calls them ends NOT
//                                     APPLICABLE at that point (exit code 77); never faked.
//
// What differs from the standard (failing tests, explained in adapters/xenium/README.md):
//   * A hazard pointer belongs to its creating thread: its slot lives in that thread's
//     control block and is returned to that thread's free list. Protecting through it,
//     re-protecting or destroying it on another thread would corrupt another thread's list,
//     so the adapter stops the program with a message instead; and when the creating thread
//     exits, its control block is retired and no longer scanned, ending protections that a
//     hazard_pointer moved to another thread still holds.
//   * rcu_domain::lock() may run deleters (entering a critical region can advance the
//     thread's epoch and free its old retire list); the standard lets only retire, unlock,
//     rcu_retire and rcu_barrier run scheduled evaluations.
//   * Deleters of a thread's retirements run only on that thread (or after it exits, on a
//     thread that advances the epoch): nothing forces them, so rcu_barrier cannot exist.
//   * No hazard pointer batches (SUT_HAS_HP_BATCH 0): xenium has no batch operation.
//
// SUT_NATIVE_API is 0: these signatures are this adapter's.
//
// ThreadSanitizer: xenium is header-only and TSan-aware (it strengthens its loads to acquire
// under TSan, see xenium/detail/port.hpp); the adapter needs no annotation.
#pragma once

#include <array>  // xenium/reclamation/generic_epoch_based.hpp uses std::array without it
#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <xenium/reclamation/generic_epoch_based.hpp>
#include <xenium/reclamation/hazard_pointer.hpp>

#include <adapter_kit.hpp>

#define SUT_NAME "xenium"
#define SUT_HAS_HAZARD_POINTER 1
#define SUT_HAS_RCU 1
#define SUT_HAS_HP_BATCH 0
#define SUT_NATIVE_API 0

namespace sut::xenium_detail {

namespace xr = xenium::reclamation;

// Hazard pointers: xenium's scheme with a growing number of slots per thread (first block
// 8), so the count is limited by memory, as in the standard.
using hp_scheme = xr::hazard_pointer<>::with<
    xenium::policy::allocation_strategy<xr::hp_allocation::dynamic_strategy<8>>>;
// RCU read side: classic epoch-based reclamation (a region is a critical region).
using rcu_scheme = xr::epoch_based<>;

template <class Scheme, class T>
using guard_of = typename Scheme::template concurrent_ptr<T, 0>::guard_ptr;
template <class T>
using marked = xenium::marked_ptr<T, 0>;

// Retirement in a scheme: through a guard that holds the object. xenium keeps the deleter in
// the object (its enable_concurrent_ptr base, from retire on).
template <class Scheme>
struct retirement {
  template <class U, class D>
  using deleter_node = typename Scheme::template enable_concurrent_ptr<U, 0, D>;

  template <class U, class D>
  static void defer(U* object, D&& d) noexcept {
    guard_of<Scheme, U> guard{marked<U>(object)};
    guard.reclaim(std::forward<D>(d));
  }
};

// A difference from the standard that would otherwise corrupt memory.
[[noreturn, gnu::cold]] inline void unsupported(const char* what) noexcept {
  saferecl_kit::unsupported("xenium", what);
}

// The object an unassociated hazard pointer holds on to, so that it keeps its slot; never
// retired, so protecting it protects nothing.
struct hp_anchor : hp_scheme::enable_concurrent_ptr<hp_anchor> {};
inline hp_anchor hp_anchor_object;

// A thread's identity for the ownership check.
constinit inline thread_local char thread_token = 0;

// Type-erased operations on a guard_ptr<U> stored in a slot.
struct guard_ops {
  void (*destroy)(void* guard) noexcept;                  // releases the slot
  void (*relocate)(void* to, void* from) noexcept;        // moves; `from` needs no destructor
};

template <class U>
struct guard_ops_impl {
  using guard = guard_of<hp_scheme, U>;
  static void destroy(void* g) noexcept { std::destroy_at(std::launder(static_cast<guard*>(g))); }
  static void relocate(void* to, void* from) noexcept {
    ::new (to) guard(std::move(*std::launder(static_cast<guard*>(from))));
  }
};

template <class U>
inline constexpr guard_ops ops_for{&guard_ops_impl<U>::destroy, &guard_ops_impl<U>::relocate};

using anchor_guard = guard_of<hp_scheme, hp_anchor>;

struct hazard_pointers : retirement<hp_scheme> {
  // A guard_ptr<U> for the U last protected (xenium's guards are typed; the standard's
  // hazard_pointer is not), and the creating thread.
  struct slot {
    slot() noexcept = default;
    slot(slot&& other) noexcept { take(other); }
    slot& operator=(slot&& other) noexcept {  // into an empty slot (the kit's only use)
      take(other);
      return *this;
    }

    alignas(anchor_guard) unsigned char storage[sizeof(anchor_guard)];
    const guard_ops* ops = nullptr;  // null: empty
    const char* owner = nullptr;

   private:
    void take(slot& other) noexcept {
      if (other.ops != nullptr) other.ops->relocate(storage, other.storage);
      ops = std::exchange(other.ops, nullptr);
      owner = std::exchange(other.owner, nullptr);
    }
  };

  // A guard holding the anchor: takes a slot from this thread's control block (may allocate a
  // new block: bad_alloc) and keeps it reserved while "unassociated".
  static slot make() {
    slot s;
    ::new (s.storage) anchor_guard(marked<hp_anchor>(&hp_anchor_object));
    s.ops = &ops_for<hp_anchor>;
    s.owner = &thread_token;
    return s;
  }

  static bool empty(const slot& s) noexcept { return s.ops == nullptr; }

  template <class U>
  static void publish(slot& s, U* p) noexcept { switch_to(s, p); }

  static void clear(slot& s) noexcept { switch_to(s, &hp_anchor_object); }

  static void release(slot& s) noexcept {
    check_owner(s,
                "destroying a hazard_pointer on a thread other than the one that created it "
                "(its slot can only return to the creating thread's free list)");
    s.ops->destroy(s.storage);
    s.ops = nullptr;
    s.owner = nullptr;
  }

 private:
  static void check_owner(const slot& s, const char* what) noexcept {
    if (s.owner != &thread_token) unsupported(what);
  }

  // Ends the current association and starts one with p, in the same slot; xenium publishes p
  // (store + seq_cst fence).
  template <class U>
  static void switch_to(slot& s, U* p) noexcept {
    check_owner(s,
                "protecting through a hazard_pointer on a thread other than the one that created "
                "it (its slot belongs to the creating thread's control block)");
    s.ops->destroy(s.storage);  // the slot goes to the head of this thread's free list ...
    ::new (s.storage) guard_of<hp_scheme, U>(marked<U>(p));  // ... and comes back: no allocation
    s.ops = &ops_for<U>;
  }
};

// RCU read side: one critical-region guard per thread, entered by the outermost lock().
struct rcu_anchor : rcu_scheme::enable_concurrent_ptr<rcu_anchor> {};
inline rcu_anchor rcu_anchor_object;
using region_guard = guard_of<rcu_scheme, rcu_anchor>;
constinit inline thread_local std::size_t region_depth = 0;
alignas(region_guard) constinit inline thread_local unsigned char region_storage[sizeof(region_guard)] = {};

// The deleter xenium runs for rcu_retire's node.
template <class U, class Reclaim>
struct run_reclaim {
  void operator()(U* object) const noexcept { Reclaim::run(object); }
};

struct rcu : retirement<rcu_scheme> {
  static void enter() noexcept {
    if (region_depth++ == 0)
      ::new (region_storage) region_guard(marked<rcu_anchor>(&rcu_anchor_object));
  }
  static void leave() noexcept {
    if (--region_depth == 0)
      std::launder(reinterpret_cast<region_guard*>(region_storage))->~region_guard();
  }

  static void synchronize() noexcept {
    saferecl_kit::not_applicable("xenium", "blocking grace period (rcu_synchronize)");
  }

  static void barrier() noexcept {
    saferecl_kit::not_applicable("xenium", "way to wait for scheduled deleters (rcu_barrier)");
  }

  template <class U, class Reclaim>
  using node = rcu_scheme::enable_concurrent_ptr<U, 0, run_reclaim<U, Reclaim>>;

  using retirement<rcu_scheme>::defer;

  template <class Reclaim, class U>
  static void defer(U* object) noexcept {
    guard_of<rcu_scheme, U> guard{marked<U>(object)};
    guard.reclaim();
  }
};

}  // namespace sut::xenium_detail

namespace sut::library {
using hazard_pointers = xenium_detail::hazard_pointers;
using rcu = xenium_detail::rcu;
}

#include <adapter_kit/standard_names.hpp>
