# The mutants: the reference implementation compiled with its named mutation points
# (reference-impl/include/saferecl/detail/mutation.hpp). One build serves every mutant; the
# active one is chosen at run time with SAFERECL_MUTANT=<id> (see mutants/README.md, catalog.json and
# `./conformance mutants`). It reuses the reference adapter's sut.hpp on purpose: a mutant
# must present exactly the reference's interface, differing only in the one broken
# guarantee.
#
# SAFERECL_API_MUTANT=<n> selects one compile-time API mutant AM-<n> instead (a declaration
# changed: see detail/mutation.hpp and catalog.json). It is a PUBLIC definition of the
# mutable library, so the library's own sources, every battery executable and the
# compile-fail tests (through the compile-probe's flags) all see the same declarations.
# `./conformance mutants` sets it in a build tree of its own (build/api-mutants/); empty or
# 0, the default, changes nothing.
set(SAFERECL_API_MUTANT "" CACHE STRING
    "mutants adapter: the compile-time API mutant AM-<n> to build (a number; empty: none)")
if(SAFERECL_API_MUTANT)
  if(NOT SAFERECL_API_MUTANT MATCHES "^[1-9][0-9]*$")  # no leading 0: 08 is not octal
    message(FATAL_ERROR "SAFERECL_API_MUTANT must be the number n of AM-<n> (8 for AM-08), "
                        "not '${SAFERECL_API_MUTANT}'")
  endif()
  target_compile_definitions(saferecl_reference_mutable PUBLIC SAFERECL_API_MUTANT=${SAFERECL_API_MUTANT})
  if(SAFERECL_API_MUTANT LESS 10)
    set(saferecl_mutants_version " and API mutant AM-0${SAFERECL_API_MUTANT}")
  else()
    set(saferecl_mutants_version " and API mutant AM-${SAFERECL_API_MUTANT}")
  endif()
else()
  set(saferecl_mutants_version "")
endif()

add_library(sut_mutants INTERFACE)
target_include_directories(sut_mutants INTERFACE ${PROJECT_SOURCE_DIR}/adapters/reference/include)
target_link_libraries(sut_mutants INTERFACE saferecl::reference_mutable)
saferecl_adapter(NAME mutants TARGET sut_mutants
                 CAPABILITIES hazard-pointer rcu hp-batch native-api
                 VERSION "saferecl ${PROJECT_VERSION} with mutation points${saferecl_mutants_version}")
