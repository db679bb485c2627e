// Compiled into every battery executable of an implementation: the capabilities its
// adapter.cmake declared (SAFERECL_DECLARED_*, passed by CMake) must agree with the
// SUT_* macros of its sut.hpp, or the battery would select the wrong tests.
#include <sut.hpp>

#if !defined(SUT_NAME) || !defined(SUT_HAS_HAZARD_POINTER) || !defined(SUT_HAS_RCU) || \
    !defined(SUT_HAS_HP_BATCH) || !defined(SUT_NATIVE_API)
#error "sut.hpp must define SUT_NAME, SUT_HAS_HAZARD_POINTER, SUT_HAS_RCU, SUT_HAS_HP_BATCH and SUT_NATIVE_API (adapters/README.md)"
#endif

static_assert(SUT_HAS_HAZARD_POINTER == SAFERECL_DECLARED_HAZARD_POINTER,
              "adapter.cmake and sut.hpp disagree about capability hazard-pointer");
static_assert(SUT_HAS_RCU == SAFERECL_DECLARED_RCU,
              "adapter.cmake and sut.hpp disagree about capability rcu");
static_assert(SUT_HAS_HP_BATCH == SAFERECL_DECLARED_HP_BATCH,
              "adapter.cmake and sut.hpp disagree about capability hp-batch");
static_assert(SUT_NATIVE_API == SAFERECL_DECLARED_NATIVE_API,
              "adapter.cmake and sut.hpp disagree about capability native-api");
