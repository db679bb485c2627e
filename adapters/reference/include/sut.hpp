// sut.hpp for the `reference` adapter: saferecl's own implementation under the standard names.
//
// Using-declarations (not wrappers), so the tests see the implementation's exact signatures,
// default arguments, overload sets and noexcept specifications.
#pragma once

#include <saferecl/hazard_pointer.hpp>
#include <saferecl/rcu.hpp>

#define SUT_NAME "reference"
#define SUT_HAS_HAZARD_POINTER 1
#define SUT_HAS_RCU 1
#define SUT_HAS_HP_BATCH 1
#define SUT_NATIVE_API 1
// The mutants adapter probes an API mutant that takes rcu_obj_base away (adapter.cmake).
#ifndef SUT_HAS_RCU_OBJ_BASE
#define SUT_HAS_RCU_OBJ_BASE 1
#endif

namespace sut {
using saferecl::hazard_pointer;
using saferecl::hazard_pointer_obj_base;
using saferecl::make_hazard_pointer;
using saferecl::swap;
using saferecl::make_hazard_pointer_batch;
using saferecl::clear_hazard_pointer_batch;

#if SUT_HAS_RCU_OBJ_BASE
using saferecl::rcu_obj_base;
#endif
using saferecl::rcu_domain;
using saferecl::rcu_default_domain;
using saferecl::rcu_synchronize;
using saferecl::rcu_barrier;
using saferecl::rcu_retire;
}  // namespace sut
