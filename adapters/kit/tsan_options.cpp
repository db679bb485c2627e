// ThreadSanitizer's defaults for the tests of a library that keeps threads of its own alive
// until exit (saferecl_library_adapter(... LIBRARY_THREADS): linked into each of their test
// executables; empty outside the TSan tier).
//
// At exit TSan sleeps atexit_sleep_ms (default 1000) whenever a thread other than main is
// still alive, to let it race with the exit-time destructors. libcds's general_threaded RCU
// keeps its disposer thread for the whole process (the adapter creates the RCU singleton on
// first use and never destroys it: pending deleters and hazard pointers may outlive main),
// and liburcu's call_rcu thread lives from the first call_rcu on, so every such test slept
// one second at exit: measured 1.08 s wall for a program that makes one libcds hazard
// pointer, against 0.10 s with atexit_sleep_ms=0 (strace: one nanosleep({1, 0}) of the main
// thread just before exit_group); 1.10 s for one liburcu rcu_retire + rcu_barrier.
//
// 50 ms keeps the point of the sleep: a deleter still running on the library's thread when
// main returns has ample time to race with the static destructors. The environment's
// TSAN_OPTIONS still override this.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
extern "C" const char* __tsan_default_options() { return "atexit_sleep_ms=50"; }
#endif
#endif
