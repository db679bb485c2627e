// <hazard_pointer>
//
// [saferecl.hp.general]/7: the number of possibly-reclaimable objects is bounded (Annex B
//   suggests at least 256 may be pending). The bound itself is unspecified, so this is
//   quality of implementation: with nothing protected, the objects retired but not yet
//   reclaimed stop growing with the number retired, and never make up half of it. Both
//   bounds scale with the work: no absolute cap, since the bound's value is the
//   implementation's (a per-thread threshold of 100,000 conforms as well as one of 1,000).
//
// Relies on: retire being the only thing these threads do, so every pass an implementation
// runs is provoked by it; an outstanding count sampled by the retiring threads (a deleter
// may lag a little behind on another thread, hence the slack).
#include "support/test.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>

namespace {

constexpr std::size_t kSampleEvery = 997;  // prime: not in step with any pass threshold

std::atomic<std::size_t> g_retired{0};
std::atomic<std::size_t> g_reclaimed{0};

struct counted_deleter {
  template <class T>
  void operator()(T* p) const noexcept {
    g_reclaimed.fetch_add(1, std::memory_order_relaxed);
    delete p;
  }
};

struct counted_object : sut::hazard_pointer_obj_base<counted_object, counted_deleter> {
  counted_object() = default;
};

std::size_t outstanding() noexcept {
  const std::size_t reclaimed = g_reclaimed.load(std::memory_order_relaxed);
  const std::size_t retired = g_retired.load(std::memory_order_relaxed);
  return retired > reclaimed ? retired - reclaimed : 0;
}

// The largest outstanding count seen in the first tenth and in the second half of a run.
struct outstanding_peaks {
  std::atomic<std::size_t> early{0};
  std::atomic<std::size_t> late{0};
  void record(std::size_t progress, std::size_t total) noexcept {
    std::atomic<std::size_t>* peak = progress < total / 10   ? &early
                                     : progress >= total / 2 ? &late
                                                             : nullptr;
    if (peak == nullptr) return;
    const std::size_t now = outstanding();
    std::size_t seen = peak->load(std::memory_order_relaxed);
    while (now > seen && !peak->compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
  }
};

// Each of `threads` threads retires `per_thread` objects, sampling as it goes.
void retire_from(std::size_t threads, std::size_t per_thread, outstanding_peaks& peaks) {
  saferecl::test::within_watchdog("retiring unprotected objects", [&] {
    saferecl::test::run_in_parallel(threads, [&](std::size_t) {
      for (std::size_t i = 1; i <= per_thread; ++i) {
        (new counted_object)->retire();
        g_retired.fetch_add(1, std::memory_order_relaxed);
        if (i % kSampleEvery == 0) peaks.record(i, per_thread);
      }
    });
  });
}

void check_bounded(const outstanding_peaks& peaks, std::size_t threads, std::size_t retired) {
  const std::size_t early = peaks.early.load();
  const std::size_t late = peaks.late.load();
  INFO("peak outstanding: ", early, " in the first tenth, ", late, " in the second half, of ",
       retired, " retired");
  CHECK(std::max(early, late) <= retired / 2);
  // Ten times as many retires must not need much more room (slack: one sample per thread).
  CHECK(late <= 2 * early + threads * kSampleEvery);
}

}  // namespace

TEST_CASE("saferecl.hp.general/7 H9: qoi: objects retired by one thread stay bounded in number" *
          doctest::test_suite("qoi.semantic")) {
  const std::size_t total = saferecl::test::scaled(1'000'000);
  saferecl::test::print_config("hp bounded outstanding, 1 thread", {{"retires", std::to_string(total)}});
  outstanding_peaks peaks;
  retire_from(1, total, peaks);
  check_bounded(peaks, 1, total);
}

TEST_CASE("saferecl.hp.general/7 H38: qoi: objects retired by four threads stay bounded in number" *
          doctest::test_suite("qoi.concurrency")) {
  const std::size_t per_thread = saferecl::test::scaled(250'000);
  saferecl::test::print_config("hp bounded outstanding, 4 threads",
                               {{"retires per thread", std::to_string(per_thread)}});
  outstanding_peaks peaks;
  retire_from(4, per_thread, peaks);
  check_bounded(peaks, 4, 4 * per_thread);
}
