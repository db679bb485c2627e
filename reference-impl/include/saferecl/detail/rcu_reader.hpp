// saferecl/detail/rcu_reader.hpp -- the pieces of the RCU implementation that the inline read
// side and the header templates need: reader records, the thread's record pointer, the
// callback node, and the out-of-line entry points of src/rcu.cpp.
//
// See the comment at the top of saferecl/rcu.hpp for the algorithm.
#pragma once

#include <atomic>
#include <cstdint>

#include "saferecl/detail/config.hpp"
#include "saferecl/detail/mutation.hpp"

namespace saferecl {
class rcu_domain;
}

namespace saferecl::detail {

// Layout of a reader word (rcu_reader_rec::ctr) and of the domain's grace-period word:
//   bit 63     the phase the region started in,
//   bits 0-62  the nesting depth (0 = quiescent).
// The domain's word always holds depth 1, so the outermost lock() publishes its phase and
// depth in a single store of a value loaded from the domain.
inline constexpr std::uint64_t kRcuPhaseBit = std::uint64_t{1} << 63;
inline constexpr std::uint64_t kRcuNestMask = kRcuPhaseBit - 1;

// The nesting mask used by readers and grace periods. MR-05 narrows it to 16 bits, so that
// depth 2^16 overflows into bits that the grace period does not look at.
inline std::uint64_t rcu_nest_mask() noexcept {
  return SAFERECL_MUTANT("MR-05") ? std::uint64_t{0xFFFF} : kRcuNestMask;
}

// Bits of rcu_domain::flags_, read by every outermost unlock().
inline constexpr std::uint32_t kRcuWriterWaiting = 1;   // a grace period sleeps on a futex
inline constexpr std::uint32_t kRcuCallbacksReady = 2;  // the head of the queue is runnable

// Ordering of the reader's own stores to its word, and of its load of the domain's flags.
// Release stores are plain moves on x86; under TSan they become seq_cst (which TSan models),
// and the StoreLoad step that the light/heavy fence pair provides becomes seq_cst as well.
inline constexpr std::memory_order kRcuPublish =
    kTsanBuild ? std::memory_order_seq_cst : std::memory_order_release;
inline constexpr std::memory_order kRcuFlagsLoad =
    kTsanBuild ? std::memory_order_seq_cst : std::memory_order_relaxed;

// One per thread that has ever entered a region. Records are never freed: a thread's exit
// returns its record for reuse, so grace periods can walk the registry without a lock.
struct alignas(kCacheLine) rcu_reader_rec {
  std::atomic<std::uint64_t> ctr{0};  // written by the owner only; read by grace periods
  std::uint32_t deferred_work = 0;    // owner only: it retired past the threshold in a region
  std::atomic<bool> in_use{false};    // claimed by a live thread
  rcu_reader_rec* next = nullptr;     // registry link; immutable once published
};

// The calling thread's record, or null before its first lock(). Constant-initialized,
// trivially destructible and initial-exec: reading it is one TLS load, no call.
inline thread_local constinit rcu_reader_rec* tls_rcu_reader
    __attribute__((tls_model("initial-exec"))) = nullptr;

// A scheduled evaluation. Plain data (trivially copyable), so rcu_obj_base<T, D> stays
// trivially copyable when D is; every field is written by retire before use.
struct rcu_cb_node {
  rcu_cb_node* next;
  void (*invoke)(rcu_cb_node*) noexcept;  // runs the evaluation (and frees the node if owned)
  void* obj;                              // rcu_obj_base: the complete object
  std::uint64_t snap;                     // runnable once the grace-period sequence reaches it
  std::uint64_t seq;                      // position in the domain's queue
};

// Out of line (src/rcu.cpp).
rcu_reader_rec* rcu_register_reader() noexcept;          // first lock() of a thread
void rcu_unlock_slow(rcu_domain& dom) noexcept;           // wake a grace period / run callbacks
void rcu_enqueue(rcu_domain& dom, rcu_cb_node* n) noexcept;  // schedule n (takes ownership)

struct rcu_domain_access;  // src/rcu.cpp's view of rcu_domain's private state

}  // namespace saferecl::detail
