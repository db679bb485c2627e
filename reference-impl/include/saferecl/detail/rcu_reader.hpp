// saferecl/detail/rcu_reader.hpp -- the pieces of the RCU implementation that the inline read
// side and the header templates need: reader records, the thread's record pointer, the
// callback node, and the out-of-line entry points of src/rcu_*.cpp.
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

// Layout of a reader word (the thread's rcu_reader_tls::ctr) and of the domain's word:
//   bit 63     phase the region began in (domain: the current phase),
//   bit 62     "special": the thread needs the out-of-line lock()/unlock() -- it is not
//              registered yet, or there is no membarrier and readers must fence ("symmetric"),
//   bit 61     "owes work": the thread retired past the threshold inside this region,
//   bits 0-60  nesting depth (0 = quiescent; the domain word always holds depth 1).
// A registered thread's quiescent word is exactly 0 (membarrier mode), so the outermost
// lock() tests for 0 and publishes phase and depth in one store of the domain word.
inline constexpr std::uint64_t kRcuPhaseBit = std::uint64_t{1} << 63;
inline constexpr std::uint64_t kRcuSpecialBit = std::uint64_t{1} << 62;
inline constexpr std::uint64_t kRcuOwesBit = std::uint64_t{1} << 61;
inline constexpr std::uint64_t kRcuDepthMask = kRcuOwesBit - 1;
// Quiescent words that send lock() out of line: no record yet / symmetric mode.
inline constexpr std::uint64_t kRcuUnregistered = kRcuSpecialBit | kRcuOwesBit;
inline constexpr std::uint64_t kRcuSymmetricIdle = kRcuSpecialBit;

// Bits of rcu_domain::flags_, read by every plain outermost unlock().
inline constexpr std::uint32_t kRcuWriterWaiting = 1;   // a grace period sleeps on a futex
inline constexpr std::uint32_t kRcuCallbacksReady = 2;  // the head of the queue is runnable

// Ordering of the reader's own stores to its word, and of its load of the domain's flags.
// Release stores are plain moves on x86; under TSan they become seq_cst (which TSan models),
// and so does the flags load, so the StoreLoad steps are seq_cst on both sides.
inline constexpr std::memory_order kRcuPublish =
    kTsanBuild ? std::memory_order_seq_cst : std::memory_order_release;
inline constexpr std::memory_order kRcuFlagsLoad =
    kTsanBuild ? std::memory_order_seq_cst : std::memory_order_relaxed;

// NB-R20, a conforming variant (adapters/mutants/): the reader publishes its word with
// relaxed stores ordered by fences, as fence-based RCUs do: a seq_cst fence after the store
// that begins a region (the StoreLoad step), a release fence before the store that ends it;
// the grace period scans with relaxed loads between seq_cst fences (src/rcu_readers.cpp).
// Valid C++ ([atomics.fences]/2), and invisible to a TSan without a fence model.
inline void rcu_enter_by_fence(std::atomic<std::uint64_t>& word, std::uint64_t value) noexcept {
  word.store(value, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void rcu_leave_by_fence(std::atomic<std::uint64_t>& word) noexcept {
  if (!SAFERECL_MUTANT("MR-90"))  // MR-90: a relaxed region end releases nothing of the region
    std::atomic_thread_fence(std::memory_order_release);
  word.store(0, std::memory_order_relaxed);
}

// The calling thread's reader record, in static TLS: constant-initialized, trivially
// destructible and initial-exec, so the read side reaches its word with one %fs-relative
// access, no call and no guard. A thread links it into the domain's registry on its first
// lock() and unlinks it at exit (grace periods only read records under the registry lock).
struct rcu_reader_tls {
  std::atomic<std::uint64_t> ctr{kRcuUnregistered};  // written by the owner only
  rcu_reader_tls* prev = nullptr;                    // registry links (registry lock)
  rcu_reader_tls* next = nullptr;
  std::uint32_t yielded_at = 0;  // the grace-period sleep it last yielded for (owner only)
};
inline thread_local constinit rcu_reader_tls tls_rcu_reader
    __attribute__((tls_model("initial-exec")));

// A scheduled evaluation. Plain data (trivially copyable), so rcu_obj_base<T, D> stays
// trivially copyable when D is; every field is written by retire before use.
struct rcu_cb_node {
  rcu_cb_node* next;
  void (*invoke)(rcu_cb_node*) noexcept;  // runs the evaluation (and frees the node if owned)
  void* obj;                              // rcu_obj_base: the complete object
  std::uint64_t snap;                     // runnable once the grace-period sequence reaches it
};

// Out of line (src/rcu_readers.cpp, rcu_callbacks.cpp).
void rcu_lock_slow(rcu_domain& dom) noexcept;             // first lock(); symmetric mode
void rcu_unlock_slow(rcu_domain& dom, std::uint64_t region) noexcept;  // `region`: its word
void rcu_unlock_outermost_slow(rcu_domain& dom) noexcept; // depth 1 with the special/owes bit
void rcu_enqueue(rcu_domain& dom, rcu_cb_node* n) noexcept;  // schedule n (takes ownership)
void mutant_count_region() noexcept;                       // MR-40 only
void mutant_walk_handed_over() noexcept;                   // MR-96 only

struct rcu_domain_access;  // src/rcu_*.cpp's view of rcu_domain's private state

}  // namespace saferecl::detail
