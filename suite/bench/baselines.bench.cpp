// baselines.bench.cpp -- reference points compiled into every implementation's benchmark
// binary, so that each implementation's numbers sit next to baselines measured by the same
// process (and the baselines of two binaries, which should agree, show the run's noise):
//
//   baseline/empty_loop           the benchmark loop itself, one empty asm statement per turn
//   baseline/tls_increment        ++ and -- of an initial-exec thread_local with compiler
//                                 barriers: the physical limit of an RCU read-side marker
//   baseline/relaxed_store_reload a relaxed store into a thread-private slot, then an acquire
//                                 load of a shared source: the two memory operations a
//                                 hazard pointer's protect() cannot avoid
//   baseline/seq_cst_exchange     the same slot published by a seq_cst exchange: what a
//                                 protect() with a fence on the reader side costs
//   baseline/store_reload_clear   the relaxed store and reload, then a relaxed store of null
//                                 into the slot: the three memory operations of protect() +
//                                 reset_protection() (publish, validate, end the epoch), the
//                                 floor of hp/protect_reset
//   baseline/tls_pop_push         pop a pointer from a thread_local array stack of 8 and push it
//                                 back (count and slots in one constant-initialized TLS block),
//                                 with the same opaque barrier on the popped value that
//                                 hp/make_destroy puts on its hazard_pointer: the cheapest
//                                 per-thread cache of records, the floor of hp/make_destroy
//   baseline/shared_mutex_shared  std::shared_mutex lock_shared + unlock_shared: the
//                                 lock-based alternative to a read-side region
//   baseline/new_delete           new + delete of a 40-byte object (the 32-byte payload and a
//                                 link of the cases above): the floor
//                                 of hp/retire, which allocates and (later) deletes one
//   baseline/new_delete_deferred  the same objects deleted 1,000 at a time, in the order they
//                                 were allocated: what the allocator charges any design that
//                                 frees in batches (every hazard-pointer domain does). glibc's
//                                 per-thread cache keeps 7 free chunks of a size; the rest of
//                                 a batch goes through its shared bins
//
// Every case runs at 1 and 2 threads; times are CPU time per operation and thread.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstddef>
#include <shared_mutex>
#include <vector>

#include "bench_support.hpp"

namespace {

using namespace saferecl_bench;

void empty_loop(benchmark::State& state) {
  // A volatile asm statement is kept once per iteration; a signal fence (which is what this
  // Google Benchmark's ClobberMemory is in C++11 and later) lets the loop fold away.
  for (auto _ : state) asm volatile("");
}

thread_local constinit unsigned long tls_nesting __attribute__((tls_model("initial-exec"))) = 0;

void tls_increment(benchmark::State& state) {
  for (auto _ : state) {
    ++tls_nesting;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --tls_nesting;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
}

// Thread-private slots, one cache line each, and one shared source on a line of its own.
struct alignas(64) Slot {
  std::atomic<void*> value{nullptr};
};
Slot g_slots[kMaxThreads];
Slot g_source;

// The source as the optimizer must see it: possibly written elsewhere. Nothing in this file
// stores to it, so without its address escaping the compiler folds every load of it to null
// and the loop keeps only the store (measured: 0.60 ns, no load at all).
std::atomic<void*>& shared_source() {
  Slot* escaped = &g_source;
  benchmark::DoNotOptimize(escaped);
  return escaped->value;
}

// The store and reload of protect(); with kClear, also reset_protection()'s store of null.
template <bool kClear>
void store_reload(benchmark::State& state) {
  std::atomic<void*>& slot = g_slots[state.thread_index() % kMaxThreads].value;
  std::atomic<void*>& source = shared_source();
  void* seen = source.load(std::memory_order_relaxed);
  for (auto _ : state) {
    slot.store(seen, std::memory_order_relaxed);
    seen = source.load(std::memory_order_acquire);
    benchmark::DoNotOptimize(seen);
    if constexpr (kClear) slot.store(nullptr, std::memory_order_relaxed);
  }
}

// A thread's stack of cached pointers, as a hazard-pointer cache of records keeps them.
struct PointerStack {
  void* items[8] = {};
  unsigned count = 0;
};
thread_local constinit PointerStack tls_stack;

void tls_pop_push(benchmark::State& state) {
  PointerStack& stack = tls_stack;
  stack.items[stack.count++] = &stack;  // one cached pointer, as after make_destroy's warm-up
  for (auto _ : state) {
    void* p = stack.items[--stack.count];
    benchmark::DoNotOptimize(p);
    stack.items[stack.count++] = p;
  }
  --stack.count;
}

void seq_cst_exchange(benchmark::State& state) {
  std::atomic<void*>& slot = g_slots[state.thread_index() % kMaxThreads].value;
  std::atomic<void*>& source = shared_source();
  void* seen = source.load(std::memory_order_relaxed);
  for (auto _ : state) {
    benchmark::DoNotOptimize(slot.exchange(seen, std::memory_order_seq_cst));
    seen = source.load(std::memory_order_acquire);
    benchmark::DoNotOptimize(seen);
  }
}

std::shared_mutex g_shared_mutex;

void shared_mutex_shared(benchmark::State& state) {
  for (auto _ : state) {
    g_shared_mutex.lock_shared();
    g_shared_mutex.unlock_shared();
  }
}

struct Object40 {
  long header = 0;
  long payload[4] = {};
};

void new_delete(benchmark::State& state) {
  for (auto _ : state) {
    auto* o = new Object40;
    benchmark::DoNotOptimize(o);
    delete o;
  }
}

constexpr std::size_t kDeferred = 1000;

void new_delete_deferred(benchmark::State& state) {
  std::vector<Object40*> pending;
  pending.reserve(kDeferred);
  for (auto _ : state) {
    auto* o = new Object40;
    benchmark::DoNotOptimize(o);
    pending.push_back(o);
    if (pending.size() == kDeferred) [[unlikely]] {
      for (Object40* p : pending) delete p;
      pending.clear();
    }
  }
  for (Object40* p : pending) delete p;
}

}  // namespace

SAFERECL_BENCH(empty_loop, "baseline/empty_loop");
SAFERECL_BENCH(tls_increment, "baseline/tls_increment");
SAFERECL_BENCH(store_reload<false>, "baseline/relaxed_store_reload");
SAFERECL_BENCH(store_reload<true>, "baseline/store_reload_clear");
SAFERECL_BENCH(tls_pop_push, "baseline/tls_pop_push");
SAFERECL_BENCH(seq_cst_exchange, "baseline/seq_cst_exchange");
SAFERECL_BENCH(shared_mutex_shared, "baseline/shared_mutex_shared");
SAFERECL_BENCH(new_delete, "baseline/new_delete");
SAFERECL_BENCH(new_delete_deferred, "baseline/new_delete_deferred");
