// sut.hpp for the `example` adapter: <rcu> over tinyrcu (library/tiny_rcu.hpp), the worked
// example of the guide to adding a library (adapters/README.md). The whole mapping: the kit
// (adapters/kit) writes the standard's shapes over the policy below.
//
//   standard                          tinyrcu
//   --------------------------------  --------------------------------------------------------
//   rcu_domain::lock / unlock         tiny_rcu::read_lock / read_unlock (nestable)
//   rcu_synchronize                   tiny_rcu::synchronize
//   rcu_barrier                       tiny_rcu::barrier
//   rcu_obj_base::retire, rcu_retire  tiny_rcu::call on a tiny_rcu::callback embedded in the
//                                     object (rcu_retire: in the kit's node {p, d1})
//
// What differs from the standard: deleters run only in rcu_barrier (the standard lets retire
// and unlock run them too), so nothing bounds the pending ones without a barrier; a thread's
// first lock allocates its record inside the noexcept lock(); rcu_barrier inside a region
// waits for that region. No hazard pointers. tinyrcu synchronizes only through C++ atomics
// and mutexes, so ThreadSanitizer needs no annotation.
#pragma once

#include <tiny_rcu.hpp>

#include <adapter_kit.hpp>

#define SUT_NAME "example"
#define SUT_HAS_HAZARD_POINTER 0
#define SUT_HAS_RCU 1
#define SUT_HAS_HP_BATCH 0
#define SUT_NATIVE_API 0

namespace sut::example_detail {

// What tinyrcu needs inside every retired object: its callback, first member.
struct callback_node {
  tiny_rcu::callback tiny_callback;
};

template <class U, class Reclaim>
void run_callback(tiny_rcu::callback* cb) {
  Reclaim::run(static_cast<U*>(reinterpret_cast<callback_node*>(cb)));
}

struct rcu {
  static void enter() noexcept { tiny_rcu::read_lock(); }
  static void leave() noexcept { tiny_rcu::read_unlock(); }
  static void synchronize() noexcept { tiny_rcu::synchronize(); }
  static void barrier() noexcept { tiny_rcu::barrier(); }

  template <class U, class Reclaim>
  using node = callback_node;

  template <class Reclaim, class U>
  static void defer(U* object) noexcept {
    callback_node* node = object;
    tiny_rcu::call(&node->tiny_callback, &run_callback<U, Reclaim>);
  }
};

}  // namespace sut::example_detail

namespace sut::library {
using rcu = example_detail::rcu;
}

#include <adapter_kit/standard_names.hpp>
