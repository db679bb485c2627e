// Microbenchmarks of <hazard_pointer> through the adapter (namespace sut), next to the
// physical-limit baselines measured in the same binary, so ratios are same-run.
//
//   baseline/relaxed_store_reload  store a pointer into a thread-private slot (relaxed),
//                                  then load the shared source: the two memory operations
//                                  protect() cannot avoid
//   baseline/seq_cst_exchange      the same slot published with a seq_cst exchange (what
//                                  a symmetric-fence protect costs)
//   baseline/new_delete            new + delete of the very object type that is retired
//   hp/protect_reset               h.protect(src) + h.reset_protection() on one pointer
//   hp/make_destroy                make_hazard_pointer() + ~hazard_pointer (cached path)
//   hp/alloc_retire                new + retire() per object; reclamation passes (and their
//                                  deletes) are amortized into the per-object time
//
//   */protect_reset_regsink and baseline/relaxed_store_reload_regsink: the same two loops
//   with the pointer consumed by a register-only sink (an empty asm with an "r" input and
//   no memory clobber) instead of DoNotOptimize, whose "memory" clobber forces every
//   object the loop uses (here the hazard_pointer's record pointer) to be reloaded from
//   memory each iteration; both sides get the same sink, so the ratio stays same-run.
//
// Each at 1 and 2 threads. Targets: protect_reset <= 1.5x relaxed_store_reload,
// make_destroy <= 3x relaxed_store_reload, alloc_retire <= 5x new_delete. Run with
//   --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// and compare medians.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstddef>
#include <new>

#include <sut.hpp>

namespace {

struct Obj : sut::hazard_pointer_obj_base<Obj> {
  Obj() noexcept {}
  long payload[4] = {};
};

// One shared source, on its own cache line; read-only during the read-side benchmarks.
struct alignas(64) Source {
  std::atomic<Obj*> ptr{nullptr};
};
Source g_source;

// Thread-private slots for the baselines, one cache line each.
struct alignas(64) Slot {
  std::atomic<Obj*> value{nullptr};
};
constexpr int kMaxThreads = 64;
Slot g_slots[kMaxThreads];

// Keeps `p` computed, and nothing else.
template <class T>
inline __attribute__((always_inline)) void register_sink(T* p) {
  asm volatile("" : : "r"(p));
}

Obj* shared_object() {
  static Obj* const obj = [] {
    auto* o = new Obj;
    g_source.ptr.store(o, std::memory_order_release);
    return o;
  }();
  return obj;
}

void baseline_relaxed_store_reload(benchmark::State& state) {
  Obj* seen = shared_object();
  std::atomic<Obj*>& slot = g_slots[state.thread_index() % kMaxThreads].value;
  for (auto _ : state) {
    slot.store(seen, std::memory_order_relaxed);
    seen = g_source.ptr.load(std::memory_order_acquire);
    benchmark::DoNotOptimize(seen);
  }
}

void baseline_relaxed_store_reload_regsink(benchmark::State& state) {
  Obj* seen = shared_object();
  std::atomic<Obj*>& slot = g_slots[state.thread_index() % kMaxThreads].value;
  for (auto _ : state) {
    slot.store(seen, std::memory_order_relaxed);
    seen = g_source.ptr.load(std::memory_order_acquire);
    register_sink(seen);
  }
}

void baseline_seq_cst_exchange(benchmark::State& state) {
  Obj* seen = shared_object();
  std::atomic<Obj*>& slot = g_slots[state.thread_index() % kMaxThreads].value;
  for (auto _ : state) {
    benchmark::DoNotOptimize(slot.exchange(seen, std::memory_order_seq_cst));
    seen = g_source.ptr.load(std::memory_order_acquire);
    benchmark::DoNotOptimize(seen);
  }
}

void baseline_new_delete(benchmark::State& state) {
  for (auto _ : state) {
    Obj* o = new Obj;
    benchmark::DoNotOptimize(o);
    benchmark::ClobberMemory();
    delete o;
  }
}

void hp_protect_reset(benchmark::State& state) {
  shared_object();
  sut::hazard_pointer h = sut::make_hazard_pointer();
  for (auto _ : state) {
    Obj* p = h.protect(g_source.ptr);
    benchmark::DoNotOptimize(p);
    h.reset_protection();
  }
}

void hp_protect_reset_regsink(benchmark::State& state) {
  shared_object();
  sut::hazard_pointer h = sut::make_hazard_pointer();
  for (auto _ : state) {
    Obj* p = h.protect(g_source.ptr);
    register_sink(p);
    h.reset_protection();
  }
}

void hp_make_destroy(benchmark::State& state) {
  { sut::hazard_pointer warm = sut::make_hazard_pointer(); }  // fill the thread's cache
  for (auto _ : state) {
    sut::hazard_pointer h = sut::make_hazard_pointer();
    benchmark::DoNotOptimize(h);
  }
}

void hp_alloc_retire(benchmark::State& state) {
  for (auto _ : state) {
    Obj* o = new Obj;
    benchmark::DoNotOptimize(o);
    benchmark::ClobberMemory();
    o->retire();
  }
}

}  // namespace

BENCHMARK(baseline_relaxed_store_reload)->Name("baseline/relaxed_store_reload")->Threads(1)->Threads(2);
BENCHMARK(baseline_relaxed_store_reload_regsink)->Name("baseline/relaxed_store_reload_regsink")->Threads(1)->Threads(2);
BENCHMARK(baseline_seq_cst_exchange)->Name("baseline/seq_cst_exchange")->Threads(1)->Threads(2);
BENCHMARK(baseline_new_delete)->Name("baseline/new_delete")->Threads(1)->Threads(2);
BENCHMARK(hp_protect_reset)->Name("hp/protect_reset")->Threads(1)->Threads(2);
BENCHMARK(hp_protect_reset_regsink)->Name("hp/protect_reset_regsink")->Threads(1)->Threads(2);
BENCHMARK(hp_make_destroy)->Name("hp/make_destroy")->Threads(1)->Threads(2);
BENCHMARK(hp_alloc_retire)->Name("hp/alloc_retire")->Threads(1)->Threads(2);
