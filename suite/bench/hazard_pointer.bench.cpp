// hazard_pointer.bench.cpp -- <hazard_pointer> of the implementation under test (namespace
// sut), built only for adapters with the hazard-pointer capability:
//
//   hp/protect_reset       h.protect(src) + h.reset_protection() on an unchanging source
//   hp/make_destroy        make_hazard_pointer() + ~hazard_pointer, after a warm-up that lets
//                          the implementation cache a record for the thread
//   hp/retire              new object + retire(), per object: the reclamation passes that the
//                          retirements trigger, and their deletes, are amortized into it;
//                          also at 4 and 8 retiring threads (oversubscribed on 2 cores). It
//                          counts nothing itself, like the native programs and the new + delete
//                          baseline it is compared with: one shared counter bumped per retire
//                          and per delete cost more than the retire (measured: 89% of the loop's
//                          samples and 92% of the deleter's on those two lock-prefixed adds, at 2
//                          threads)
//   hp/batch_make_clear    make_hazard_pointer_batch + clear_hazard_pointer_batch of
//                          kBatchSize hazard pointers, per batch (adapters with hp-batch only)
//
// Every case above runs at 1 and 2 threads; times are CPU time per operation and thread.
//
// Scaling curves, at one thread, against the number of hazard pointers the thread owns
// (live:N, N-1 of them protecting an object each, plus the measured ones):
//
//   hp/reset_protection    protect(src) + reset_protection(): H34 ([saferecl.hp.holder.mem]/10,
//                          /13) promises constant time, so the curve must stay flat
//   hp/swap                a.swap(b) of two owning hazard pointers: constant time too (H34,
//                          /15)
//   hp/retire              new object + retire(): every reclamation pass must look at every
//                          live hazard pointer, so a gentle growth is expected; the counter
//                          peak_unreclaimed is the most objects retired but not yet deleted
//
// An implementation that cannot give the thread N hazard pointers (a fixed per-thread array,
// as in libcds) ends the case with NOT APPLICABLE and the limit it hit.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include <sut.hpp>

#include "bench_support.hpp"
#include "support/not_applicable.hpp"

namespace {

using namespace saferecl_bench;

struct Obj : sut::hazard_pointer_obj_base<Obj> {
  Obj() noexcept {}
  long payload[4] = {};
};

void protect_reset(benchmark::State& state) {
  std::atomic<Obj*>& source = stable_source<Obj>();
  sut::hazard_pointer h = sut::make_hazard_pointer();
  for (auto _ : state) {
    Obj* p = h.protect(source);
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


// The hazard pointers a curve's thread owns besides the measured ones, each protecting an
// object of its own that is never retired while they live.
class LiveHazardPointers {
 public:
  explicit LiveHazardPointers(std::int64_t count) {
    holders_.reserve(count);
    objects_.reserve(count);
    try {
      for (std::int64_t i = 0; i < count; ++i) {
        objects_.push_back(new Obj);
        holders_.push_back(sut::make_hazard_pointer());
        holders_.back().reset_protection(objects_.back());
      }
    } catch (const std::bad_alloc&) {
      const std::string reason = "make_hazard_pointer() failed after " +
                                 std::to_string(holders_.size()) + " live hazard pointers";
      saferecl::test::not_applicable(reason.c_str());
    }
  }
  ~LiveHazardPointers() {
    holders_.clear();  // the protections end before the objects go
    for (Obj* o : objects_) delete o;
  }
  LiveHazardPointers(const LiveHazardPointers&) = delete;
  LiveHazardPointers& operator=(const LiveHazardPointers&) = delete;

 private:
  std::vector<sut::hazard_pointer> holders_;
  std::vector<Obj*> objects_;
};

void reset_protection_vs_live(benchmark::State& state) {
  std::atomic<Obj*>& source = stable_source<Obj>();
  LiveHazardPointers others(state.range(0) - 1);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  for (auto _ : state) {
    Obj* p = h.protect(source);
    benchmark::DoNotOptimize(p);
    h.reset_protection();
  }
}

void swap_vs_live(benchmark::State& state) {
  std::atomic<Obj*>& source = stable_source<Obj>();
  LiveHazardPointers others(state.range(0) - 2);
  sut::hazard_pointer a = sut::make_hazard_pointer();
  sut::hazard_pointer b = sut::make_hazard_pointer();
  a.protect(source);
  for (auto _ : state) {
    a.swap(b);
    benchmark::DoNotOptimize(a);
  }
}

// Counts the objects retired and deleted so far, for peak_unreclaimed.
std::atomic<std::int64_t> g_counted_retired{0};
std::atomic<std::int64_t> g_counted_deleted{0};

struct CountedObj : sut::hazard_pointer_obj_base<CountedObj> {
  CountedObj() noexcept {}
  ~CountedObj() { g_counted_deleted.fetch_add(1, std::memory_order_relaxed); }
  long payload[4] = {};
};

// The timed loop of the retire curve: new + retire, and the most objects this thread saw
// retired but not yet deleted (by any thread) at once.
void retire_counted(benchmark::State& state) {
  std::int64_t peak = 0;
  for (auto _ : state) {
    auto* o = new CountedObj;
    benchmark::DoNotOptimize(o);
    o->retire();
    const std::int64_t retired = g_counted_retired.fetch_add(1, std::memory_order_relaxed) + 1;
    peak = std::max(peak, retired - g_counted_deleted.load(std::memory_order_relaxed));
  }
  set_peak_unreclaimed(state, static_cast<double>(peak));
}

void retire(benchmark::State& state) {
  for (auto _ : state) {
    auto* o = new Obj;
    benchmark::DoNotOptimize(o);
    o->retire();
  }
}

void retire_vs_live(benchmark::State& state) {
  LiveHazardPointers others(state.range(0));
  retire_counted(state);
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
SAFERECL_BENCH(retire, "hp/retire")->Threads(4)->Threads(8);
#if SUT_HAS_HP_BATCH
SAFERECL_BENCH(batch_make_clear, "hp/batch_make_clear");
#endif
SAFERECL_BENCH_CURVE(reset_protection_vs_live, "hp/reset_protection", "live", 1, 10, 100, 1000, 10000);
SAFERECL_BENCH_CURVE(swap_vs_live, "hp/swap", "live", 2, 10, 100, 1000, 10000);
SAFERECL_BENCH_CURVE(retire_vs_live, "hp/retire", "live", 1, 10, 100, 1000, 10000);
