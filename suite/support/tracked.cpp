// Compiled once per implementation (it uses the adapter's hazard pointers).
#include "support/tracked.hpp"

#include <memory>

#include "support/child_process.hpp"

namespace saferecl::test {

#if SUT_HAS_HAZARD_POINTER
namespace {

std::atomic<std::size_t> g_churn_reclaimed{0};

struct churn_object;
// A deleter of the harness's own: churn names neither the default argument nor the default
// deleter type (an implementation may use its own, AM-16).
struct churn_deleter {
  void operator()(churn_object* p) const noexcept;
};
struct churn_object : sut::hazard_pointer_obj_base<churn_object, churn_deleter> {
  churn_object() = default;
  ~churn_object() { g_churn_reclaimed.fetch_add(1, std::memory_order_relaxed); }
};

void churn_deleter::operator()(churn_object* p) const noexcept { delete p; }

// A churn step: a sign of life for a forked child's parent (support/child_process.hpp).
constexpr std::size_t kChurnStep = 256;

}  // namespace

void churn(std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    (new churn_object)->retire(churn_deleter{});
    if (i % kChurnStep == kChurnStep - 1) child_progressed();
  }
}

std::size_t churn_reclaimed() noexcept { return g_churn_reclaimed.load(std::memory_order_relaxed); }
#endif

}  // namespace saferecl::test
