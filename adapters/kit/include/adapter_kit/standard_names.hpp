// adapter_kit/standard_names.hpp -- the standard's names in namespace sut, from the policies of
// an adapter (see adapter_kit.hpp). Included last by the adapter's sut.hpp, after the SUT_*
// macros and the policies sut::library::hazard_pointers (when SUT_HAS_HAZARD_POINTER) and
// sut::library::rcu (when SUT_HAS_RCU). The kit has no batches: an adapter with
// SUT_HAS_HP_BATCH declares those itself.
#pragma once

#include <adapter_kit.hpp>

#include <memory>

namespace sut {

#if SUT_HAS_HAZARD_POINTER
using hazard_pointer = saferecl_kit::hazard_pointer<library::hazard_pointers>;

template <class T, class D = std::default_delete<T>>
using hazard_pointer_obj_base = saferecl_kit::hazard_pointer_obj_base<library::hazard_pointers, T, D>;

inline hazard_pointer make_hazard_pointer() {
  return saferecl_kit::make_hazard_pointer<library::hazard_pointers>();
}

using saferecl_kit::swap;
#endif

#if SUT_HAS_RCU
using rcu_domain = saferecl_kit::rcu_domain<library::rcu>;

inline rcu_domain& rcu_default_domain() noexcept { return rcu_domain::default_domain(); }

inline void rcu_synchronize(rcu_domain& = rcu_default_domain()) noexcept { library::rcu::synchronize(); }

inline void rcu_barrier(rcu_domain& = rcu_default_domain()) noexcept { library::rcu::barrier(); }

template <class T, class D = std::default_delete<T>>
void rcu_retire(T* p, D d = D(), rcu_domain& = rcu_default_domain()) {
  saferecl_kit::rcu_retire<library::rcu, T, D>(p, std::move(d));
}

template <class T, class D = std::default_delete<T>>
using rcu_obj_base = saferecl_kit::rcu_obj_base<library::rcu, T, D>;
#endif

}  // namespace sut
