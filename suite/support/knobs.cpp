#include "support/knobs.hpp"

#include <cstdio>
#include <cstdlib>
#include <random>

namespace saferecl::test {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) noexcept {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }

}  // namespace

double stress_scale() {
  static const double scale = [] {
    const char* env = std::getenv("SAFERECL_STRESS_SCALE");
    double v = env != nullptr ? std::strtod(env, nullptr) : 1.0;
    return v > 0 ? v : 1.0;
  }();
  return scale;
}

std::uint64_t seed() {
  static const std::uint64_t value = []() -> std::uint64_t {
    if (const char* env = std::getenv("SAFERECL_SEED"); env != nullptr && *env != '\0')
      return std::strtoull(env, nullptr, 0);
    return (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  }();
  return value;
}

std::uint64_t scaled(std::uint64_t base) {
  double v = static_cast<double>(base) * stress_scale();
  return v < 1 ? 1 : static_cast<std::uint64_t>(v);
}

std::chrono::milliseconds scaled(std::chrono::milliseconds base) {
  return std::chrono::milliseconds(scaled(static_cast<std::uint64_t>(base.count())));
}

std::chrono::milliseconds stress_duration(std::chrono::milliseconds quick,
                                          std::chrono::milliseconds unit) {
  return stress_scale() > 1 ? scaled(unit) : scaled(quick);
}

void print_config(std::string_view test,
                  std::initializer_list<std::pair<std::string_view, std::string>> extra) {
  std::string line = "[saferecl] " + std::string(test) + ": seed=" + std::to_string(seed()) +
                     " scale=" + std::to_string(stress_scale());
  for (const auto& [key, value] : extra) line += " " + std::string(key) + "=" + value;
  std::fprintf(stderr, "%s\n", line.c_str());
}

rng::rng(std::uint64_t stream) {
  std::uint64_t x = seed() ^ (stream * 0xd1b54a32d192ed03ULL);
  for (auto& word : s_) word = splitmix64(x);
}

std::uint64_t rng::next() noexcept {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

}  // namespace saferecl::test
