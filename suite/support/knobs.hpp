// Stress knobs, seeds and the per-test random stream.
//
//   SAFERECL_STRESS_SCALE  multiplies durations and iteration counts of stress tests
//                          (default 1; the driver's profiles set quick=1, full=10, soak=100)
//   SAFERECL_SEED          64-bit seed of every random choice (default: drawn at start);
//                          printed by every stress test so that a failure can be replayed
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace saferecl::test {

double stress_scale();
std::uint64_t seed();

// `base` multiplied by the stress scale, never below 1 (count) or 1 ms (duration).
std::uint64_t scaled(std::uint64_t base);
std::chrono::milliseconds scaled(std::chrono::milliseconds base);

// The run time of a stress test. At scale 1 (the quick profile) it is `quick`: a few times
// the longest its catalogued mutants took to die (adapters/mutants/catalog.json; how it was
// measured: suite/README.md, "Stress durations"), so a quick run buys detection and no more.
// Above scale 1 it is `unit` times the scale (full 10, soak 100: the long runs, as before);
// below 1, `quick` times the scale.
std::chrono::milliseconds stress_duration(std::chrono::milliseconds quick,
                                          std::chrono::milliseconds unit);

// Prints "[saferecl] <test>: seed=... scale=... key=value ..." on stderr. Every stress test
// calls it first, so a failing run always shows how to replay it.
void print_config(std::string_view test,
                  std::initializer_list<std::pair<std::string_view, std::string>> extra = {});

// xoshiro256** seeded from seed() and a stream number (e.g. the thread index), so each
// thread draws an independent, reproducible sequence.
class rng {
 public:
  explicit rng(std::uint64_t stream);
  std::uint64_t next() noexcept;
  std::uint64_t below(std::uint64_t bound) noexcept { return next() % bound; }
  bool one_in(std::uint64_t n) noexcept { return below(n) == 0; }

 private:
  std::uint64_t s_[4];
};

}  // namespace saferecl::test
