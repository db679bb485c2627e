#include "support/custody.hpp"

namespace saferecl::test {

custody_ledger::serial_t custody_ledger::born() noexcept {
  return born_.fetch_add(1, std::memory_order_acq_rel);
}

std::atomic<std::uint8_t>& custody_ledger::deaths(serial_t serial) noexcept {
  return deaths_[serial % kCapacity];  // a test makes far fewer deleters than that
}

bool custody_ledger::died(serial_t serial) noexcept {
  died_.fetch_add(1, std::memory_order_acq_rel);
  if (serial < constructed() && deaths(serial).fetch_add(1, std::memory_order_acq_rel) == 0)
    return true;
  twice_.fetch_add(1, std::memory_order_acq_rel);
  return false;
}

void custody_ledger::invoked(serial_t serial, bool intact) noexcept {
  if (!intact || serial >= constructed() || deaths(serial).load(std::memory_order_acquire) != 0)
    after_death_.fetch_add(1, std::memory_order_acq_rel);
  invoked_.fetch_add(1, std::memory_order_acq_rel);
}

custody_ledger& custody() {
  static custody_ledger* const ledger = new custody_ledger;  // never destroyed
  return *ledger;
}

}  // namespace saferecl::test
