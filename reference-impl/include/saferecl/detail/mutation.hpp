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
// Two deleter-custody bugs are shared by both facilities, so their bodies live here (every
// build compiles them, since a call behind `if (false)` is still instantiated; only their
// mutants run them):
//   mutant_run_destroying_stored  the stored deleter is moved out to run and destroyed in
//                                 place, and destroying the object destroys it again
//   mutant_run_never_destroyed    it is moved into a slot of its own, never destroyed
//
// One slowness is shared by several operations (NB-H60), so it lives here too:
//   mutant_busy_work              spins for a fixed amount of the calling thread's CPU time
//
// Mutants of the API itself (a declaration changed: AM-xx) cannot be switched at run time;
// they are patches applied to a copy of these headers by the mutants adapter
// (adapters/mutants/api/), so nothing of them appears here.
#pragma once

#include <time.h>

#include <memory>
#include <new>
#include <utility>

namespace saferecl::detail {
// Counted in the thread's CPU time, so the work is the same however busy the machine is.
inline void mutant_busy_work() noexcept {
  constexpr long kNanoseconds = 100'000;
  timespec start{}, now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  do ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  while ((now.tv_sec - start.tv_sec) * 1'000'000'000L + (now.tv_nsec - start.tv_nsec) < kNanoseconds);
}
template <class D, class T>
void mutant_run_destroying_stored(D& stored, T* x) noexcept {
  D taken;
  taken = std::move(stored);
  std::destroy_at(&stored);
  taken(x);
}
template <class D, class T>
void mutant_run_never_destroyed(D& stored, T* x) noexcept {
  alignas(D) unsigned char slot[sizeof(D)];
  D* taken = ::new (static_cast<void*>(slot)) D;
  *taken = std::move(stored);
  (*taken)(x);
}
}  // namespace saferecl::detail

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

namespace saferecl::detail {
// MR-80: the deleter slot of an object already queued is written again: it holds a
// default-constructed D for a widened window and d only after it. The mutation point sits
// after the queuing (the API patches keep the lines before it as their context), so this
// is how it exposes what a retire that stores d after queuing exposes: a default D, then a
// write that races with the evaluation another thread may already be running.
template <class D>
void mutant_store_after_publish(D& stored) noexcept {
  D d;
  d = std::move(stored);
  stored = D();
  SAFERECL_MUTANT_WIDEN_WINDOW();
  stored = std::move(d);
}
}  // namespace saferecl::detail
