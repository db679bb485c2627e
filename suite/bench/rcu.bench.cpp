// rcu.bench.cpp -- <rcu> of the implementation under test (namespace sut), built only for
// adapters with the rcu capability:
//
//   rcu/lock_unlock                  rcu_default_domain().lock() + unlock(), outermost
//   rcu/nested_lock_unlock           the same pair inside an enclosing region of the thread
//   rcu/synchronize                  rcu_synchronize() with no thread inside a region (at 2
//                                    threads both call it at once)
//   rcu/synchronize_long_reader      rcu_synchronize() called just after another thread (not
//                                    a benchmark thread) entered a region of kLongRegion: the
//                                    region's 50 us plus how soon the grace period notices
//                                    that it ended
//   rcu/retire_barrier               rcu_retire(new object) kBatch times, then rcu_barrier();
//                                    reported per object: the grace period's share, the
//                                    deleter (a delete) and the allocation are included; the
//                                    object has no base class, so an implementation needs a
//                                    node of its own for each
//   rcu/obj_retire_barrier           the same with objects derived from rcu_obj_base and their
//                                    retire(), which carry that node inside (the form the
//                                    libraries' own APIs use: an entry in the object)
//
// Every case above runs at 1 and 2 threads. Scaling curves:
//
//   rcu/retire_barrier and           also at 4 and 8 threads (oversubscribed on 2 cores):
//   rcu/obj_retire_barrier           deferred free must scale with the retiring threads
//
//   rcu/lock_unlock                  also at 4 and 8 threads (oversubscribed on 2 cores): the
//                                    read side must not slow down with more readers
//   rcu/synchronize/readers:N        rcu_synchronize() latency while N other threads run
//                                    back-to-back empty regions (1 to 64; from 2 on, with
//                                    the caller, more threads than the 2 cores of the
//                                    project's machine: readers are preempted inside their
//                                    regions, and a grace period waits until they run again)
//   rcu/synchronize/region_us:L      rcu_synchronize() latency just after one reader entered
//                                    a region of L microseconds: L plus the grace period's delay
//                                    in noticing that the region ended
//
// A thread's first region (registration) stays out of
// the timing. An adapter without rcu_synchronize / rcu_barrier ends the case with exit
// status 77, which ./conformance bench reports as n/a.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <sut.hpp>

#include "bench_support.hpp"

namespace {

using namespace saferecl_bench;

void register_reader_thread() {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  dom.lock();
  dom.unlock();
}

void lock_unlock(benchmark::State& state) {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  register_reader_thread();
  for (auto _ : state) {
    dom.lock();
    dom.unlock();
  }
}

void nested_lock_unlock(benchmark::State& state) {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  dom.lock();
  for (auto _ : state) {
    dom.lock();
    dom.unlock();
  }
  dom.unlock();
}

void synchronize(benchmark::State& state) {
  register_reader_thread();
  for (auto _ : state) sut::rcu_synchronize();
}

// Long against a grace period without readers (well under 1 us here), short enough that a
// run of the case takes well under a second.
constexpr auto kLongRegion = std::chrono::microseconds(50);

// Threads (not benchmark threads) that run back-to-back read-side regions of a given length
// (zero: empty regions). A synchronize case that calls wait_for_next_region() first makes
// every grace period wait for a region: on a busy machine a reader descheduled between two
// regions would otherwise let grace periods pass unhindered, and the case would measure the
// scheduler.
class ReaderThreads {
 public:
  // Returns once every reader has begun its first region: registration and thread start-up
  // (64 threads take a while on 2 cores) stay out of the timing.
  ReaderThreads(int count, std::chrono::microseconds region) {
    for (int i = 0; i < count; ++i) threads_.emplace_back([this, region] { run_regions(region); });
    while (threads_running_.load(std::memory_order_acquire) < count) std::this_thread::yield();
  }
  ~ReaderThreads() {
    stop_.store(true, std::memory_order_relaxed);
    for (std::thread& t : threads_) t.join();
  }
  ReaderThreads(const ReaderThreads&) = delete;
  ReaderThreads& operator=(const ReaderThreads&) = delete;

  // Returns once a reader has entered a region that began after the call.
  void wait_for_next_region() const {
    const unsigned long seen = regions_started_.load(std::memory_order_acquire);
    while (regions_started_.load(std::memory_order_acquire) == seen) {
      // Spins: a yield would hand this CPU to whatever else runs on the machine.
    }
  }

 private:
  void run_regions(std::chrono::microseconds region) {
    sut::rcu_domain& dom = sut::rcu_default_domain();
    register_reader_thread();
    threads_running_.fetch_add(1, std::memory_order_release);
    while (!stop_.load(std::memory_order_relaxed)) {
      dom.lock();
      regions_started_.fetch_add(1, std::memory_order_release);
      const auto until = std::chrono::steady_clock::now() + region;
      while (std::chrono::steady_clock::now() < until) {
      }
      dom.unlock();
    }
  }

  std::atomic<bool> stop_{false};
  std::atomic<int> threads_running_{0};
  std::atomic<unsigned long> regions_started_{0};
  std::vector<std::thread> threads_;
};

void synchronize_long_reader(benchmark::State& state) {
  register_reader_thread();
  // Google Benchmark lines the threads up before and after the loop, so the reader that
  // thread 0 starts here runs exactly while any thread is timed.
  static ReaderThreads* reader = nullptr;
  if (state.thread_index() == 0) reader = new ReaderThreads(1, kLongRegion);
  for (auto _ : state) {
    reader->wait_for_next_region();
    sut::rcu_synchronize();
  }
  if (state.thread_index() == 0) {
    delete reader;
    reader = nullptr;
  }
}

void synchronize_vs_readers(benchmark::State& state) {
  register_reader_thread();
  const ReaderThreads readers(static_cast<int>(state.range(0)), std::chrono::microseconds(0));
  for (auto _ : state) sut::rcu_synchronize();
}

void synchronize_vs_region(benchmark::State& state) {
  register_reader_thread();
  const ReaderThreads reader(1, std::chrono::microseconds(state.range(0)));
  for (auto _ : state) {
    reader.wait_for_next_region();
    sut::rcu_synchronize();
  }
}

struct Payload {
  long value = 0;
};

struct BasedPayload : sut::rcu_obj_base<BasedPayload> {
  long value = 0;
};

constexpr int kBatch = 1024;

void retire_barrier(benchmark::State& state) {
  register_reader_thread();
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) sut::rcu_retire(new Payload);
    sut::rcu_barrier();
  }
  set_objects_per_iteration(state, kBatch);
}

void obj_retire_barrier(benchmark::State& state) {
  register_reader_thread();
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) (new BasedPayload)->retire();
    sut::rcu_barrier();
  }
  set_objects_per_iteration(state, kBatch);
}

}  // namespace

SAFERECL_BENCH(lock_unlock, "rcu/lock_unlock")->Threads(4)->Threads(8);
SAFERECL_BENCH(nested_lock_unlock, "rcu/nested_lock_unlock");
SAFERECL_BENCH_REAL_TIME(synchronize, "rcu/synchronize");
SAFERECL_BENCH_REAL_TIME(synchronize_long_reader, "rcu/synchronize_long_reader");
SAFERECL_BENCH_REAL_TIME(retire_barrier, "rcu/retire_barrier")->Threads(4)->Threads(8);
SAFERECL_BENCH_REAL_TIME(obj_retire_barrier, "rcu/obj_retire_barrier")->Threads(4)->Threads(8);
SAFERECL_BENCH_CURVE_REAL_TIME(synchronize_vs_readers, "rcu/synchronize", "readers", 1, 2, 4, 8, 16, 32, 64);
SAFERECL_BENCH_CURVE_REAL_TIME(synchronize_vs_region, "rcu/synchronize", "region_us", 1, 10, 100, 1000);
