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
// Compile-time API mutants. A run-time switch cannot change a declaration, so the mutants
// of the API itself (a noexcept dropped, a special member made public, a Mandates check
// removed, a class made final...) are chosen when the library is compiled: a mutation
// build configured with -DSAFERECL_API_MUTANT=<n> (CMake cache variable of the mutants
// adapter, adapters/mutants/adapter.cmake; catalog id AM-<n>) compiles the library, the
// battery and the compile-fail tests with SAFERECL_API_MUTANT=<n>, and the headers select
// the mutated declaration with
//
//   #if SAFERECL_API_MUTANT_IS(3)                    // AM-03: hazard_pointer copyable
//     hazard_pointer(const hazard_pointer&) noexcept = default;
//   #endif
//
// SAFERECL_API_MUTANT_IS(n) is a preprocessor condition (usable in #if and in constant
// expressions); without SAFERECL_API_MUTANT it is 0 for every n, so the normal build and the
// run-time mutation build see exactly the reference's declarations. One build serves one
// API mutant (`./conformance mutants --only AM-03` builds a tree per mutant).
//
//   AM-01 hazard_pointer::reset_protection (both overloads) not noexcept
//   AM-02 rcu_domain::lock, try_lock and unlock not noexcept
//   AM-03 hazard_pointer copy-constructible and copy-assignable
//   AM-04 rcu_domain move-constructible and move-assignable
//   AM-05 hazard_pointer_obj_base's special members public
//   AM-06 rcu_obj_base's special members public
//   AM-07 protect, try_protect and reset_protection(const T*) do not check the Mandates
//   AM-08 rcu_retire does not check is_move_constructible_v<D> (runs d(p) in place)
//   AM-09 rcu_domain::try_lock returns int
//   AM-10 rcu_synchronize and rcu_barrier without their default argument
//   AM-11 hazard_pointer and rcu_domain final
//   AM-12 rcu_obj_base not trivially copyable (its copy operations reset the node)
//   AM-13 member and non-member swap of hazard_pointer not noexcept
//   AM-14 hazard_pointer_obj_base::retire checks only is_base_of (naive Mandates)
//   AM-15 ~hazard_pointer, ~rcu_domain, ~hazard_pointer_obj_base, ~rcu_obj_base noexcept(false)
//   AM-16 the default deleter of both object bases is not default_delete<T>
//   AM-17 rcu_default_domain not noexcept
//   AM-18 rcu_retire without the default template argument D = default_delete<T>
//   AM-19 hazard_pointer_obj_base::retire and rcu_obj_base::retire not noexcept
//   AM-20 rcu_retire unconditionally noexcept
//   AM-21 hazard_pointer's constructors, move assignment, empty, protect, try_protect not noexcept
//   AM-22 rcu_domain publicly default-constructible
//   AM-23 rcu_domain without try_lock (BasicLockable, not Lockable)
//   AM-24 the batch functions take std::vector<hazard_pointer>& (src/hazard_pointer.cpp too)
//   AM-25 both retire()s check only is_base_of and reach T through void*
//   AM-26 both retire()s reject a final T
//   AM-27 rcu_retire does not check that d(p) is well-formed (the call is then dropped)
#pragma once

#if defined(SAFERECL_API_MUTANT)
#if !defined(SAFERECL_MUTATION_POINTS)
#error "SAFERECL_API_MUTANT is for mutation builds only (the mutants adapter)"
#endif
#define SAFERECL_API_MUTANT_IS(n) (SAFERECL_API_MUTANT == (n))
#else
#define SAFERECL_API_MUTANT_IS(n) 0
#endif

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
