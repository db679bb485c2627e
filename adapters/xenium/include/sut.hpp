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

namespace sut {
namespace xenium_detail {

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

// Type-erased operations on a guard_ptr<U> stored in a hazard_pointer.
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

// RCU read side: one critical-region guard per thread, entered by the outermost lock().
struct rcu_anchor : rcu_scheme::enable_concurrent_ptr<rcu_anchor> {};
inline rcu_anchor rcu_anchor_object;
using region_guard = guard_of<rcu_scheme, rcu_anchor>;
constinit inline thread_local std::size_t region_depth = 0;
alignas(region_guard) constinit inline thread_local unsigned char region_storage[sizeof(region_guard)] = {};

template <class T, class D>
struct rcu_node;

template <class T, class D>
struct rcu_node_deleter {
  void operator()(rcu_node<T, D>* n) const noexcept;
};

// rcu_retire's heap node: xenium retires only objects derived from its base.
template <class T, class D>
struct rcu_node : rcu_scheme::enable_concurrent_ptr<rcu_node<T, D>, 0, rcu_node_deleter<T, D>> {
  rcu_node(T* p, D&& d) : ptr(p), deleter(std::move(d)) {}
  T* ptr;
  D deleter;
};

template <class T, class D>
void rcu_node_deleter<T, D>::operator()(rcu_node<T, D>* n) const noexcept {
  n->deleter(n->ptr);
  delete n;
}

}  // namespace xenium_detail

// --------------------------------------------------------------------------- <hazard_pointer>

template <class T, class D = std::default_delete<T>>
class hazard_pointer_obj_base : public xenium_detail::hp_scheme::enable_concurrent_ptr<T, 0, D> {
 public:
  void retire(D d = D()) noexcept {
    // xenium retires through a guard that holds the object.
    xenium_detail::guard_of<xenium_detail::hp_scheme, T> guard(
        xenium_detail::marked<T>(static_cast<T*>(this)));
    guard.reclaim(std::move(d));
  }

 protected:
  hazard_pointer_obj_base() = default;
  hazard_pointer_obj_base(const hazard_pointer_obj_base&) = default;
  hazard_pointer_obj_base(hazard_pointer_obj_base&&) = default;
  hazard_pointer_obj_base& operator=(const hazard_pointer_obj_base&) = default;
  hazard_pointer_obj_base& operator=(hazard_pointer_obj_base&&) = default;
  ~hazard_pointer_obj_base() = default;
};

class hazard_pointer {
 public:
  hazard_pointer() noexcept {}  // user-provided: `const hazard_pointer h;` is well-formed
  hazard_pointer(hazard_pointer&& other) noexcept { take(other); }
  hazard_pointer& operator=(hazard_pointer&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~hazard_pointer() { release(); }

  bool empty() const noexcept { return ops_ == nullptr; }

  template <class T>
  T* protect(const std::atomic<T*>& src) noexcept {
    T* ptr = src.load(std::memory_order_relaxed);
    while (!try_protect(ptr, src)) {
    }
    return ptr;
  }

  template <class T>
  bool try_protect(T*& ptr, const std::atomic<T*>& src) noexcept {
    T* old = ptr;
    reset_protection(old);  // publishes old, then a seq_cst fence (xenium's set_object)
    ptr = src.load(std::memory_order_acquire);
    if (old != ptr) {
      reset_protection();
      return false;
    }
    return true;
  }

  template <class T>
  void reset_protection(const T* ptr) noexcept {
    using U = std::remove_const_t<T>;
    if (ptr == nullptr) {
      reset_protection();
      return;
    }
    switch_to<U>(const_cast<U*>(ptr));
  }

  void reset_protection(std::nullptr_t = nullptr) noexcept {
    switch_to<xenium_detail::hp_anchor>(&xenium_detail::hp_anchor_object);
  }

  void swap(hazard_pointer& other) noexcept {
    hazard_pointer tmp(std::move(other));
    other = std::move(*this);
    *this = std::move(tmp);
  }

 private:
  friend hazard_pointer make_hazard_pointer();

  void check_owner(const char* what) const noexcept {
    if (owner_ != &xenium_detail::thread_token) xenium_detail::unsupported(what);
  }

  // Ends the current association and starts one with p, in the same slot.
  template <class U>
  void switch_to(U* p) noexcept {
    check_owner(
        "protecting through a hazard_pointer on a thread other than the one that created it "
        "(its slot belongs to the creating thread's control block)");
    ops_->destroy(storage_);  // the slot goes to the head of this thread's free list ...
    ::new (storage_) xenium_detail::guard_of<xenium_detail::hp_scheme, U>(
        xenium_detail::marked<U>(p));  // ... and comes back from it here: no allocation
    ops_ = &xenium_detail::ops_for<U>;
  }

  void take(hazard_pointer& other) noexcept {
    if (other.ops_ == nullptr) return;
    other.ops_->relocate(storage_, other.storage_);
    ops_ = std::exchange(other.ops_, nullptr);
    owner_ = std::exchange(other.owner_, nullptr);
  }

  void release() noexcept {
    if (ops_ == nullptr) return;
    check_owner(
        "destroying a hazard_pointer on a thread other than the one that created it "
        "(its slot can only return to the creating thread's free list)");
    ops_->destroy(storage_);
    ops_ = nullptr;
    owner_ = nullptr;
  }

  alignas(xenium_detail::anchor_guard) unsigned char storage_[sizeof(xenium_detail::anchor_guard)];
  const xenium_detail::guard_ops* ops_ = nullptr;  // null: empty
  const char* owner_ = nullptr;
};

inline hazard_pointer make_hazard_pointer() {
  hazard_pointer h;
  // Takes a slot from this thread's control block (may allocate a new block: bad_alloc).
  ::new (h.storage_) xenium_detail::anchor_guard(xenium_detail::marked<xenium_detail::hp_anchor>(
      &xenium_detail::hp_anchor_object));
  h.ops_ = &xenium_detail::ops_for<xenium_detail::hp_anchor>;
  h.owner_ = &xenium_detail::thread_token;
  return h;
}

inline void swap(hazard_pointer& a, hazard_pointer& b) noexcept { a.swap(b); }

// --------------------------------------------------------------------------- <rcu>

namespace xenium_detail {
struct rcu_region {
  static void enter() noexcept {
    if (region_depth++ == 0)
      ::new (region_storage) region_guard(marked<rcu_anchor>(&rcu_anchor_object));
  }
  static void leave() noexcept {
    if (--region_depth == 0)
      std::launder(reinterpret_cast<region_guard*>(region_storage))->~region_guard();
  }
};
}  // namespace xenium_detail

using rcu_domain = saferecl_kit::rcu_domain<xenium_detail::rcu_region>;

inline rcu_domain& rcu_default_domain() noexcept { return rcu_domain::default_domain(); }

inline void rcu_synchronize(rcu_domain& = rcu_default_domain()) noexcept {
  saferecl_kit::not_applicable("xenium", "blocking grace period (rcu_synchronize)");
}

inline void rcu_barrier(rcu_domain& = rcu_default_domain()) noexcept {
  saferecl_kit::not_applicable("xenium", "way to wait for scheduled deleters (rcu_barrier)");
}

template <class T, class D = std::default_delete<T>>
void rcu_retire(T* p, D d = D(), rcu_domain& = rcu_default_domain()) {
  saferecl_kit::check_rcu_retire_mandates<T, D>();
  using node = xenium_detail::rcu_node<T, D>;
  auto* n = new node(p, std::move(d));
  xenium_detail::guard_of<xenium_detail::rcu_scheme, node> guard{xenium_detail::marked<node>(n)};
  guard.reclaim();
}

template <class T, class D = std::default_delete<T>>
class rcu_obj_base : public xenium_detail::rcu_scheme::enable_concurrent_ptr<T, 0, D> {
 public:
  void retire(D d = D(), rcu_domain& = rcu_default_domain()) noexcept {
    xenium_detail::guard_of<xenium_detail::rcu_scheme, T> guard(
        xenium_detail::marked<T>(static_cast<T*>(this)));
    guard.reclaim(std::move(d));
  }

 protected:
  rcu_obj_base() = default;
  rcu_obj_base(const rcu_obj_base&) = default;
  rcu_obj_base(rcu_obj_base&&) = default;
  rcu_obj_base& operator=(const rcu_obj_base&) = default;
  rcu_obj_base& operator=(rcu_obj_base&&) = default;
  ~rcu_obj_base() = default;
};

}  // namespace sut
