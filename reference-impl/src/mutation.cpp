// Run-time selection of the active mutant; see saferecl/detail/mutation.hpp.
// Compiled only into the mutation-enabled library (SAFERECL_MUTATION_POINTS).
#include "saferecl/detail/mutation.hpp"

#include <cstdlib>
#include <string_view>
#include <thread>
#include <utility>

namespace saferecl::detail {
namespace {

std::string_view active_mutant() noexcept {
  static const std::string_view active = [] {
    const char* env = std::getenv("SAFERECL_MUTANT");
    return std::string_view(env != nullptr ? env : "");
  }();
  return active;
}

// A mutant of a conforming variant is that variant with one more bug: it switches both on.
constexpr std::pair<std::string_view, std::string_view> kBuiltOnVariant[] = {
    {"MR-70", "NB-R20"},  // the fence-synchronized RCU without the grace period's acquire fence
    {"MR-90", "NB-R20"},  // ... without the release fence of its readers' region end
};

}  // namespace

bool mutant_active(const char* id) noexcept {
  const std::string_view active = active_mutant();
  if (active == id) return true;
  for (const auto& [mutant, variant] : kBuiltOnVariant)
    if (active == mutant && variant == id) return true;
  return false;
}

void mutant_widen_window() noexcept {
  if (active_mutant().empty()) return;
  // A cheap per-thread pseudo-random stream: yield on about one call in eight.
  thread_local unsigned state = static_cast<unsigned>(
      std::hash<std::thread::id>{}(std::this_thread::get_id())) | 1U;
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  if ((state & 7U) == 0) std::this_thread::yield();
}

}  // namespace saferecl::detail
