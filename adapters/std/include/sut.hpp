// sut.hpp for the `std` adapter: the implementation's own <hazard_pointer> and <rcu>.
//
// adapter.cmake detects which headers exist (by their feature-test macros) and defines
// SAFERECL_STD_HAS_*; the names are using-declarations, so the tests see the exact
// signatures, default arguments and overload sets the implementation declares.
#pragma once

#include <version>

#define SUT_NAME "std"
#define SUT_NATIVE_API 1

#if defined(SAFERECL_STD_HAS_HAZARD_POINTER)
#include <hazard_pointer>
#define SUT_HAS_HAZARD_POINTER 1
#else
#define SUT_HAS_HAZARD_POINTER 0
#endif

#if defined(SAFERECL_STD_HAS_HP_BATCH)
#define SUT_HAS_HP_BATCH 1
#else
#define SUT_HAS_HP_BATCH 0
#endif

#if defined(SAFERECL_STD_HAS_RCU)
#include <rcu>
#define SUT_HAS_RCU 1
#else
#define SUT_HAS_RCU 0
#endif
// adapter.cmake defines it 0 for an <rcu> without rcu_obj_base (adapters/README.md).
#ifndef SUT_HAS_RCU_OBJ_BASE
#define SUT_HAS_RCU_OBJ_BASE SUT_HAS_RCU
#endif

namespace sut {
#if SUT_HAS_HAZARD_POINTER
using std::hazard_pointer;
using std::hazard_pointer_obj_base;
using std::make_hazard_pointer;
using std::swap;
#endif
#if SUT_HAS_HP_BATCH
using std::make_hazard_pointer_batch;
using std::clear_hazard_pointer_batch;
#endif
#if SUT_HAS_RCU
#if SUT_HAS_RCU_OBJ_BASE
using std::rcu_obj_base;
#endif
using std::rcu_domain;
using std::rcu_default_domain;
using std::rcu_synchronize;
using std::rcu_barrier;
using std::rcu_retire;
#endif
}  // namespace sut
