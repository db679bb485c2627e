// rcu.bench.cpp -- read-side and update-side costs of the implementation under test's <rcu>,
// next to two in-binary baselines measured in the same run:
//   * the physical limit of a read-side marker: an inlined increment and decrement of a
//     thread-local counter (initial-exec TLS) separated by compiler barriers;
//   * std::shared_mutex lock_shared/unlock_shared, the lock-based alternative.
// Every case runs at 1 and 2 threads. Report medians of repetitions, e.g.
//   rcu.bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// and compare cases as ratios within one run (absolute numbers vary between machines).
#include <sut.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <memory>
#include <shared_mutex>

namespace {

// ------------------------------------------------------------------------------ baselines
thread_local constinit unsigned long tls_nesting __attribute__((tls_model("initial-exec"))) = 0;

void baseline_tls_inc_dec(benchmark::State& state) {
  for (auto _ : state) {
    ++tls_nesting;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --tls_nesting;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
}
BENCHMARK(baseline_tls_inc_dec)->Threads(1)->Threads(2);

std::shared_mutex g_shared_mutex;

void baseline_shared_mutex(benchmark::State& state) {
  for (auto _ : state) {
    g_shared_mutex.lock_shared();
    g_shared_mutex.unlock_shared();
  }
}
BENCHMARK(baseline_shared_mutex)->Threads(1)->Threads(2);

// ------------------------------------------------------------------------------ read side
void rcu_lock_unlock(benchmark::State& state) {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  dom.lock();  // the thread's first region (registration) stays out of the timing
  dom.unlock();
  for (auto _ : state) {
    dom.lock();
    dom.unlock();
  }
}
BENCHMARK(rcu_lock_unlock)->Threads(1)->Threads(2);

// A lock/unlock pair inside an enclosing region of the same thread.
void rcu_nested_lock_unlock(benchmark::State& state) {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  dom.lock();
  for (auto _ : state) {
    dom.lock();
    dom.unlock();
  }
  dom.unlock();
}
BENCHMARK(rcu_nested_lock_unlock)->Threads(1)->Threads(2);

// ---------------------------------------------------------------------------- update side
// No thread is inside a region (at 2 threads both call rcu_synchronize concurrently).
void rcu_synchronize_no_readers(benchmark::State& state) {
  for (auto _ : state) sut::rcu_synchronize();
}
BENCHMARK(rcu_synchronize_no_readers)->Threads(1)->Threads(2)->UseRealTime();

struct Payload {
  long value = 0;
};

// rcu_retire of a heap object with the default deleter; each iteration retires a batch and
// ends with rcu_barrier, so the cost per object includes its grace period share and deleter.
void rcu_retire_then_barrier(benchmark::State& state) {
  constexpr int kBatch = 1024;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) sut::rcu_retire(new Payload);
    sut::rcu_barrier();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);  // per_object: seconds per object
  state.counters["per_object"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kBatch,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(rcu_retire_then_barrier)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
