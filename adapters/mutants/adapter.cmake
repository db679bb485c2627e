# The mutants: the reference implementation compiled with its named mutation points
# (reference-impl/include/saferecl/detail/mutation.hpp). One build serves every mutant; the
# active one is chosen at run time with SAFERECL_MUTANT=<id> (see mutants/catalog.md and
# `./conformance mutants`). It reuses the reference adapter's sut.hpp on purpose: a mutant
# must present exactly the reference's interface, differing only in the one broken
# guarantee.
add_library(sut_mutants INTERFACE)
target_include_directories(sut_mutants INTERFACE ${PROJECT_SOURCE_DIR}/adapters/reference/include)
target_link_libraries(sut_mutants INTERFACE saferecl::reference_mutable)
saferecl_adapter(NAME mutants TARGET sut_mutants
                 CAPABILITIES hazard-pointer rcu hp-batch native-api
                 VERSION "saferecl ${PROJECT_VERSION} with mutation points")
