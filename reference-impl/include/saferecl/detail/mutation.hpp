// saferecl/detail/mutation.hpp -- named mutation points (deliberate bugs) for the test suite.
//
// saferecl proves its battery can fail by running it against "mutants": copies of this
// implementation with one realistic bug switched in (the catalog lives with the suite that
// uses it: adapters/mutants/). Mutation points exist only when the library is compiled with
// SAFERECL_MUTATION_POINTS; in the normal build `SAFERECL_MUTANT(id)` is the constant
// `false` and every mutated branch is discarded by the compiler.
//
// In a mutation build one library serves every mutant: the active one is named at run time
// by the environment variable SAFERECL_MUTANT (e.g. SAFERECL_MUTANT=MH-01), so the battery
// is compiled once per sanitizer tier instead of once per mutant.
//
//   if (SAFERECL_MUTANT("MR-01")) return;          // "busted synchronize"
//
// SAFERECL_MUTANT_WIDEN_WINDOW() marks a race window that a timing-sensitive mutant needs
// widened to be caught in reasonable time (the DEBUG_YIELD idea of liburcu): in a mutation
// build with a mutant active it sometimes yields the CPU; otherwise it is nothing.
//
// Mutants of the API itself (a declaration changed: AM-xx) cannot be switched at run time;
// they are patches applied to a copy of these headers by the mutants adapter
// (adapters/mutants/api/), so nothing of them appears here.
#pragma once

#if defined(SAFERECL_MUTATION_POINTS)

namespace saferecl::detail {
bool mutant_active(const char* id) noexcept;
void mutant_widen_window() noexcept;
}  // namespace saferecl::detail

#define SAFERECL_MUTANT(id) (::saferecl::detail::mutant_active(id))
#define SAFERECL_MUTANT_WIDEN_WINDOW() (::saferecl::detail::mutant_widen_window())

#else

#define SAFERECL_MUTANT(id) false
#define SAFERECL_MUTANT_WIDEN_WINDOW() ((void)0)

#endif
