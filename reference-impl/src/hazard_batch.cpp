// The C++29 batch functions (P3428R4): n records taken all or nothing, and their release.
// Design: saferecl/hazard_pointer.hpp.
#include "hazard_internal.hpp"

#include <new>
#include <span>
#include <utility>

namespace saferecl {

namespace detail {
namespace {

// MH-32: every element gets a new hazard pointer, so an owning one loses its epoch.
// MH-33: elements are filled one by one, so a failure part-way leaves earlier ones owning.
void mutant_batch_one_by_one(std::span<hazard_pointer> batch, bool replace_owning) {
  for (hazard_pointer& h : batch)
    if (replace_owning || h.empty()) h = make_hazard_pointer();
}

// MH-36: the clear stops at the first empty element, as if it marked the end of the batch.
void mutant_clear_until_empty(std::span<hazard_pointer> batch) noexcept {
  for (hazard_pointer& h : batch) {
    if (h.empty()) return;
    h = hazard_pointer{};
  }
}

// MH-37: the batch re-initializes every record it touches, so an owning element's epoch ends.
void mutant_reset_owning(std::span<hazard_pointer> batch) noexcept {
  for (hazard_pointer& h : batch)
    if (!h.empty()) h.reset_protection();
}

// MH-38: an allocation failure is swallowed: the call returns with the empty elements empty.
bool mutant_chain_or_nothing(std::size_t n, hazard_record*& chain) noexcept {
  try {
    chain = hazard_acquire_chain(n);
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

// MH-39: the records are taken in a noexcept helper, so an allocation failure terminates.
hazard_record* mutant_chain_or_terminate(std::size_t n) noexcept { return hazard_acquire_chain(n); }

}  // namespace
}  // namespace detail

void make_hazard_pointer_batch(std::span<hazard_pointer> batch) {
  if (SAFERECL_MUTANT("MH-32") || SAFERECL_MUTANT("MH-33"))
    return detail::mutant_batch_one_by_one(batch, SAFERECL_MUTANT("MH-32"));
  std::size_t need = 0;
  for (const hazard_pointer& h : batch) need += h.empty() ? 1 : 0;
  if (SAFERECL_MUTANT("MH-37")) detail::mutant_reset_owning(batch);
  if (need == 0) return;
  detail::hazard_record* chain;
  if (SAFERECL_MUTANT("MH-38")) {
    if (!detail::mutant_chain_or_nothing(need, chain)) return;
  } else if (SAFERECL_MUTANT("MH-39")) {
    chain = detail::mutant_chain_or_terminate(need);
  } else {
    chain = detail::hazard_acquire_chain(need);  // throws: no change
  }
  for (hazard_pointer& h : batch) {
    if (!h.empty()) continue;
    detail::hazard_record* r = chain;
    chain = chain->chain;
    h.rec_ = detail::hazard_ref_for(r);
  }
}

void clear_hazard_pointer_batch(std::span<hazard_pointer> batch) noexcept {
  if (SAFERECL_MUTANT("MH-36")) return detail::mutant_clear_until_empty(batch);
  for (hazard_pointer& h : batch) {
    if (h.empty()) continue;
    detail::hazard_release(std::exchange(h.rec_, detail::hazard_ref{}));
  }
}

}  // namespace saferecl
