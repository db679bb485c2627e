// What the benchmark programs share: the registration macros that fix the thread counts and
// the timing of a case, so that ./conformance bench reads every case the same way.
//
// ./conformance bench runs one case per process (--benchmark_filter=^<name>$), alternating
// implementations, and takes from Google Benchmark's JSON:
//   * the case's time per iteration: CPU time (per thread) for SAFERECL_BENCH, wall-clock
//     time for SAFERECL_BENCH_REAL_TIME (cases that block or wait for other threads, where
//     CPU time would leave the waiting out; at 2 threads it is wall time over the iterations
//     of both threads);
//   * divided by the counter kObjectsPerIteration when a case sets it (an iteration that
//     handles a batch of objects reports the time per object);
//   * the counter kPeakUnreclaimed, when a case sets it: the most objects it had retired and
//     not yet seen deleted at once.
//
// A scaling curve (SAFERECL_BENCH_CURVE) is one case per value of a swept quantity, named
// "<name>/<quantity>:<value>", at one thread; the reports draw each family as a chart of time
// against the quantity.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>

namespace saferecl_bench {

inline constexpr int kMaxThreads = 64;
inline constexpr const char* kObjectsPerIteration = "objects_per_iteration";
inline constexpr const char* kPeakUnreclaimed = "peak_unreclaimed";

// Declares that each iteration of the calling case handles `n` objects.
inline void set_objects_per_iteration(benchmark::State& state, double n) {
  state.counters[kObjectsPerIteration] = benchmark::Counter(n, benchmark::Counter::kAvgThreads);
}

// The source a protect case reads, on a cache line of its own: one T published on first use,
// never changed and never retired (it outlives every benchmark), so every protect validates
// at its first attempt.
template <class T>
std::atomic<T*>& stable_source() {
  struct alignas(64) Source {
    std::atomic<T*> ptr{nullptr};
  };
  static Source source;
  static T* const published = [] {
    auto* obj = new T;
    source.ptr.store(obj, std::memory_order_release);
    return obj;
  }();
  benchmark::DoNotOptimize(published);
  return source.ptr;
}

// Declares the most objects the case saw retired and not yet deleted at once (the threads'
// observations of one shared count, averaged).
inline void set_peak_unreclaimed(benchmark::State& state, double objects) {
  state.counters[kPeakUnreclaimed] = benchmark::Counter(objects, benchmark::Counter::kAvgThreads);
}

}  // namespace saferecl_bench

#define SAFERECL_BENCH(function, name) \
  BENCHMARK(function)->Name(name)->Threads(1)->Threads(2)
#define SAFERECL_BENCH_REAL_TIME(function, name) \
  BENCHMARK(function)->Name(name)->Threads(1)->Threads(2)->UseRealTime()
#define SAFERECL_BENCH_CURVE(function, name, quantity, ...) \
  BENCHMARK(function)->Name(name)->ArgName(quantity)->ArgsProduct({{__VA_ARGS__}})->Threads(1)
#define SAFERECL_BENCH_CURVE_REAL_TIME(function, name, quantity, ...) \
  SAFERECL_BENCH_CURVE(function, name, quantity, __VA_ARGS__)->UseRealTime()
