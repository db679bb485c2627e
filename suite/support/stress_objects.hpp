// Self-checking objects for torture tests, usable at any rate without growing the object
// log (tracked objects cost a log entry each; a release-tier torture run makes millions).
//
// A `payload` keeps the invariant b == ~a while it lives. Its deleter `poison<T>` first
// checks the invariant (a second reclamation of the same object finds it broken), then
// poisons both words, counts the reclamation in the type's `ledger`, and hands the memory
// to the quarantine, which keeps it mapped for a while: a reader that reaches a reclaimed
// object sees the poison -- in the unsanitized tier too -- rather than reused memory.
// The fields are plain on purpose: a premature reclamation is also a data race for TSan.
#pragma once

#include <sut.hpp>

#include <atomic>
#include <cstdint>

#include "support/object_log.hpp"

namespace saferecl::test::stress {

// Per-type reclamation counts, at namespace scope: deleters may run after the test body.
template <class T>
struct ledger {
  static inline std::atomic<std::uint64_t> reclaimed{0};
  static inline std::atomic<std::uint64_t> repeated{0};  // deleter ran on a broken object
};

struct payload {
  explicit payload(std::uint64_t v = 0) noexcept : a(v), b(~v) {}
  std::uint64_t a, b;
  std::uint64_t value() const noexcept { return a; }
  bool intact() const noexcept { return b == ~a; }
};

template <class T>
struct poison {
  void operator()(T* p) const noexcept {
    payload& w = *p;
    if (!w.intact()) ledger<T>::repeated.fetch_add(1, std::memory_order_relaxed);
    w.a = kPoison;
    w.b = kPoison;
    ledger<T>::reclaimed.fetch_add(1, std::memory_order_relaxed);
    graveyard().bury(p, [](void* memory) noexcept { delete static_cast<T*>(memory); });
  }
};

}  // namespace saferecl::test::stress
