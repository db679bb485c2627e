// hazard_pointer.bench.cpp -- <hazard_pointer> of the implementation under test (namespace
// sut), built only for adapters with the hazard-pointer capability:
//
//   hp/protect_reset       h.protect(src) + h.reset_protection() on an unchanging source
//   hp/make_destroy        make_hazard_pointer() + ~hazard_pointer, after a warm-up that lets
//                          the implementation cache a record for the thread
//   hp/retire              new object + retire(), per object: the reclamation passes that the
//                          retirements trigger, and their deletes, are amortized into it
//   hp/batch_make_clear    make_hazard_pointer_batch + clear_hazard_pointer_batch of
//                          kBatchSize hazard pointers, per batch (adapters with hp-batch only)
//
// Every case runs at 1 and 2 threads; times are CPU time per operation and thread.
#include <benchmark/benchmark.h>

#include <array>
#include <atomic>

#include <sut.hpp>

#include "bench_support.hpp"

namespace {

using namespace saferecl_bench;

struct Obj : sut::hazard_pointer_obj_base<Obj> {
  Obj() noexcept {}
  long payload[4] = {};
};

// The source that protect() reads, on a cache line of its own; it never changes, so every
// protect() validates at the first attempt.
struct alignas(64) Source {
  std::atomic<Obj*> ptr{nullptr};
};
Source g_source;

void publish_source_once() {
  static Obj* const obj = [] {  // never retired: it outlives every benchmark
    auto* o = new Obj;
    g_source.ptr.store(o, std::memory_order_release);
    return o;
  }();
  benchmark::DoNotOptimize(obj);
}

void protect_reset(benchmark::State& state) {
  publish_source_once();
  sut::hazard_pointer h = sut::make_hazard_pointer();
  for (auto _ : state) {
    Obj* p = h.protect(g_source.ptr);
    benchmark::DoNotOptimize(p);
    h.reset_protection();
  }
}

void make_destroy(benchmark::State& state) {
  { sut::hazard_pointer warm_up = sut::make_hazard_pointer(); }
  for (auto _ : state) {
    sut::hazard_pointer h = sut::make_hazard_pointer();
    benchmark::DoNotOptimize(h);
  }
}

void retire(benchmark::State& state) {
  for (auto _ : state) {
    Obj* o = new Obj;
    benchmark::DoNotOptimize(o);
    o->retire();
  }
}

#if SUT_HAS_HP_BATCH
constexpr int kBatchSize = 8;

void batch_make_clear(benchmark::State& state) {
  std::array<sut::hazard_pointer, kBatchSize> batch;
  sut::make_hazard_pointer_batch(batch);  // warm-up, as in make_destroy
  sut::clear_hazard_pointer_batch(batch);
  for (auto _ : state) {
    sut::make_hazard_pointer_batch(batch);
    benchmark::DoNotOptimize(batch);
    sut::clear_hazard_pointer_batch(batch);
  }
}
#endif

}  // namespace

SAFERECL_BENCH(protect_reset, "hp/protect_reset");
SAFERECL_BENCH(make_destroy, "hp/make_destroy");
SAFERECL_BENCH(retire, "hp/retire");
#if SUT_HAS_HP_BATCH
SAFERECL_BENCH(batch_make_clear, "hp/batch_make_clear");
#endif
