// native.bench.cpp -- xenium at its best, through its own API, beside the adapter's cases: its
// hazard pointers with the library's default policy (a static array of 3 per thread) and a
// guard_ptr acquired and reset as the library documents, and, for the read side, the
// epoch-based scheme whose region_guard enters a critical region eagerly (new_epoch_based).
// The cases have the adapter cases' names, so the report puts them in the same rows:
//
//   hp/protect_reset     guard_ptr::acquire(src) + guard_ptr::reset() on an unchanging source
//   hp/retire            new object + guard_ptr(p).reclaim(), per object
//   rcu/lock_unlock      a region_guard constructed and destroyed (enter + leave a region)
#include <array>  // xenium/reclamation/generic_epoch_based.hpp uses std::array without it
#include <xenium/reclamation/generic_epoch_based.hpp>
#include <xenium/reclamation/hazard_pointer.hpp>

#include <benchmark/benchmark.h>

#include <bench_support.hpp>  // suite/bench: the cases' registration, as for the adapter's

namespace {

using namespace saferecl_bench;
namespace xr = xenium::reclamation;

using hp_scheme = xr::hazard_pointer<>;
using region_scheme = xr::new_epoch_based<>;

struct Obj : hp_scheme::enable_concurrent_ptr<Obj> {
  long payload[4] = {};
};
using concurrent_obj_ptr = hp_scheme::concurrent_ptr<Obj>;
using guard = concurrent_obj_ptr::guard_ptr;

concurrent_obj_ptr g_source;

void publish_source_once() {
  static Obj* const obj = [] {  // never retired: it outlives every benchmark
    auto* o = new Obj;
    g_source.store(xenium::marked_ptr<Obj, 0>(o), std::memory_order_release);
    return o;
  }();
  benchmark::DoNotOptimize(obj);
}

void protect_reset(benchmark::State& state) {
  publish_source_once();
  guard g;
  for (auto _ : state) {
    g.acquire(g_source, std::memory_order_acquire);
    benchmark::DoNotOptimize(g.get());
    g.reset();
  }
}

void retire(benchmark::State& state) {
  for (auto _ : state) {
    auto* o = new Obj;
    benchmark::DoNotOptimize(o);
    guard(xenium::marked_ptr<Obj, 0>(o)).reclaim();
  }
}

void lock_unlock(benchmark::State& state) {
  { region_scheme::region_guard first{}; }  // the thread's first region registers it
  for (auto _ : state) {
    region_scheme::region_guard region{};
    benchmark::DoNotOptimize(&region);
  }
}

}  // namespace

SAFERECL_BENCH(protect_reset, "hp/protect_reset");
SAFERECL_BENCH(retire, "hp/retire")->Threads(4)->Threads(8);
SAFERECL_BENCH(lock_unlock, "rcu/lock_unlock")->Threads(4)->Threads(8);
