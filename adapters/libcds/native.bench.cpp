// native.bench.cpp -- libcds's hazard pointers at their best, through its own API, beside the
// adapter's cases: the process initializes libcds once, every benchmark thread attaches before
// it is timed, and a cds::gc::HP::Guard is used as the library documents. The cases have the
// adapter cases' names, so the report puts them in the same rows:
//
//   hp/protect_reset     Guard::protect(src) + Guard::clear() on an unchanging source
//   hp/make_destroy      a Guard constructed and destroyed (a slot of the thread's array)
//   hp/retire            new object + cds::gc::HP::retire(p, disposer), per object
#include <cds/gc/hp.h>
#include <cds/init.h>
#include <cds/threading/model.h>

#include <benchmark/benchmark.h>

#include <atomic>

#include <bench_support.hpp>  // suite/bench: the cases' registration, as for the adapter's

namespace {

using namespace saferecl_bench;

constexpr std::size_t kHazardPointersPerThread = 64;  // the adapter's default

void initialize_libcds_once() {
  static const bool initialized = [] {
    cds::Initialize();
    cds::gc::hp::smr::construct(kHazardPointersPerThread);
    return true;
  }();
  benchmark::DoNotOptimize(initialized);
}

// Attached to libcds for the lifetime of one benchmark thread's run of a case.
class AttachedThread {
 public:
  AttachedThread() {
    initialize_libcds_once();
    cds::threading::Manager::attachThread();
  }
  ~AttachedThread() { cds::threading::Manager::detachThread(); }
  AttachedThread(const AttachedThread&) = delete;
  AttachedThread& operator=(const AttachedThread&) = delete;
};

struct Obj {
  long payload[4] = {};
};

void protect_reset(benchmark::State& state) {
  std::atomic<Obj*>& source = stable_source<Obj>();
  const AttachedThread attached;
  cds::gc::HP::Guard guard;
  for (auto _ : state) {
    Obj* p = guard.protect(source);
    benchmark::DoNotOptimize(p);
    guard.clear();
  }
}

void make_destroy(benchmark::State& state) {
  const AttachedThread attached;
  for (auto _ : state) {
    cds::gc::HP::Guard guard;
    benchmark::DoNotOptimize(guard);
  }
}

void dispose(void* p) { delete static_cast<Obj*>(p); }

void retire(benchmark::State& state) {
  const AttachedThread attached;
  for (auto _ : state) {
    Obj* o = new Obj;
    benchmark::DoNotOptimize(o);
    cds::gc::HP::retire(o, &dispose);
  }
}

}  // namespace

SAFERECL_BENCH(protect_reset, "hp/protect_reset");
SAFERECL_BENCH(make_destroy, "hp/make_destroy");
SAFERECL_BENCH(retire, "hp/retire")->Threads(4)->Threads(8);
