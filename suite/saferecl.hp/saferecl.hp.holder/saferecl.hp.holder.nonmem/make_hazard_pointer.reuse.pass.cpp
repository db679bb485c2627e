// <hazard_pointer>
//
// hazard_pointer make_hazard_pointer();
//   Effects: constructs a hazard pointer.
// How hazard pointers are stored is unspecified; quality of implementation (HS-16, RB-09):
// hazard pointers released by exited threads are reused, so waves of short-lived threads
// that each make and destroy a few dozen do not grow memory wave after wave -- also with
// 1000 hazard pointers alive all the while.
//
// Relies on: the live heap as the allocator reports it (the sanitizer allocator's count, or
// mallinfo2), with nothing else allocated across the waves: the threads protect objects
// the test owns and retire nothing. An implementation that keeps hazard pointers outside
// the heap passes vacuously.
#include "support/test.hpp"
#include "support/hp_checks.hpp"
#include "support/sanitizers.hpp"

#include <cstddef>
#include <string>
#include <vector>

#define SAFERECL_SANITIZER_ALLOCATOR (SAFERECL_TEST_UNDER_ASAN || SAFERECL_TEST_UNDER_TSAN)
#if SAFERECL_SANITIZER_ALLOCATOR
#include <sanitizer/allocator_interface.h>
#else
#include <malloc.h>
#endif

using saferecl::test::published;

namespace {

std::size_t live_heap_bytes() {
#if SAFERECL_SANITIZER_ALLOCATOR
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#endif
}

constexpr std::size_t kLiveHolders = 1'000;
constexpr std::size_t kThreadsPerWave = 8;
constexpr std::size_t kHoldersPerThread = 20;  // more than any per-thread cache holds

// One wave: threads that make hazard pointers, protect with them, destroy them and exit.
void wave(const published& target) {
  saferecl::test::run_in_parallel(kThreadsPerWave, [&](std::size_t) {
    std::vector<sut::hazard_pointer> holders;
    holders.reserve(kHoldersPerThread);
    for (std::size_t i = 0; i < kHoldersPerThread; ++i) {
      holders.push_back(sut::make_hazard_pointer());
      holders.back().protect(target.src);
    }
  });
}

}  // namespace

TEST_CASE("saferecl.hp.holder.nonmem/1 H36: qoi: waves of threads reuse hazard pointers instead of adding more" *
          doctest::test_suite("qoi.concurrency")) {
  const std::size_t waves = saferecl::test::scaled(20);
  published target(1);
  std::vector<sut::hazard_pointer> live(kLiveHolders);
  for (auto& h : live) {
    h = sut::make_hazard_pointer();
    h.protect(target.src);
  }

  std::size_t first_wave = 0, later_waves = 0;
  saferecl::test::within_watchdog("waves of threads that make and destroy hazard pointers", [&] {
    const std::size_t before = live_heap_bytes();
    wave(target);
    const std::size_t after_first = live_heap_bytes();
    for (std::size_t w = 1; w < waves; ++w) wave(target);
    first_wave = after_first > before ? after_first - before : 0;
    const std::size_t after_all = live_heap_bytes();
    later_waves = after_all > after_first ? after_all - after_first : 0;
  });
  saferecl::test::print_config("hp hazard pointer reuse",
                               {{"waves", std::to_string(waves)},
                                {"first wave bytes", std::to_string(first_wave)},
                                {"later waves bytes", std::to_string(later_waves)}});
  // All later waves together may not need much more than the first one did.
  CHECK(later_waves <= 2 * first_wave + 16 * 1024);
}
