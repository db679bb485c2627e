// saferecl/detail/rcu_node_cache.hpp -- the thread's cache of the blocks that rcu_retire's
// nodes live in.
//
// rcu_retire(p, d) needs a node for {p, d}. With a new + delete per node, the heap was a
// third of rcu/retire_barrier's cost (glibc's per-thread cache holds 7 chunks of a size, so
// a batch of 1024 goes through malloc's bins). Nodes of at most kRcuNodeBlock bytes
// (deleters of up to 16 bytes) live in fixed-size blocks instead: the retiring thread
// takes one from its cache, and the thread that runs the evaluation gives it back to its own.
// A thread that retires and also runs what it retired (the retiring thread drives and runs
// at the threshold, rcu.hpp "Callbacks") reuses its blocks without touching the heap.
//   bound:    kRcuNodeCacheCap blocks per thread (64 KiB), the most one retirer outside
//             regions keeps in flight; a block beyond it goes to operator delete.
//   failure:  an empty cache allocates with operator new, so rcu_retire still throws
//             bad_alloc, before anything is scheduled, when it needs memory and gets none.
//             A block from the cache needs no memory: no throw, which conforms (the
//             standard allows bad_alloc, it does not demand it).
//   exit:     the cache opens with its first block given back (a pthread key, whose
//             destructor releases the blocks and closes the cache: blocks that deleters
//             running later on the exiting thread give back go to operator delete).
//   fork:     nothing shared: a child's one thread keeps its own blocks.
//   ASan:     a cached block is poisoned but for its link, so a node used after it ran is
//             still reported.
// Cost: a take or a give is a few loads and stores to static TLS, inline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "saferecl/detail/config.hpp"

#if SAFERECL_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace saferecl::detail {

inline constexpr std::size_t kRcuNodeBlock = 64;
inline constexpr std::uint32_t kRcuNodeCacheCap = 1024;  // = kRcuRetireThreshold

struct rcu_node_block {
  rcu_node_block* next;
};

enum class rcu_node_cache_phase : std::uint8_t { unopened, open, closed };

// Constant-initialized and trivially destructible: a plain TLS access, readable during thread
// teardown after the exit hook closed it.
struct rcu_node_cache {
  rcu_node_block* head = nullptr;
  std::uint32_t count = 0;
  std::uint32_t capacity = 0;  // kRcuNodeCacheCap while open, else 0 (give takes the slow path)
  rcu_node_cache_phase phase = rcu_node_cache_phase::unopened;
};
inline thread_local constinit rcu_node_cache tls_rcu_node_cache
    __attribute__((tls_model("initial-exec")));

void rcu_node_give_slow(void* block) noexcept;  // src/rcu_node_cache.cpp: open, or delete

inline void rcu_node_poison(rcu_node_block* b) noexcept {
#if SAFERECL_ASAN
  ASAN_POISON_MEMORY_REGION(b + 1, kRcuNodeBlock - sizeof(rcu_node_block));
#else
  (void)b;
#endif
}
inline void rcu_node_unpoison(rcu_node_block* b) noexcept {
#if SAFERECL_ASAN
  ASAN_UNPOISON_MEMORY_REGION(b + 1, kRcuNodeBlock - sizeof(rcu_node_block));
#else
  (void)b;
#endif
}

// A block for a node: the cache's newest, else a new one (which may throw bad_alloc).
inline void* rcu_node_take() {
  rcu_node_cache& c = tls_rcu_node_cache;
  rcu_node_block* const b = c.head;
  if (b == nullptr) [[unlikely]]
    return ::operator new(kRcuNodeBlock);
  rcu_node_unpoison(b);
  c.head = b->next;
  --c.count;
  return b;
}

// Takes back the block of a node that has been destroyed.
inline void rcu_node_give(void* block) noexcept {
  rcu_node_cache& c = tls_rcu_node_cache;
  if (c.count >= c.capacity) [[unlikely]]
    return rcu_node_give_slow(block);
  auto* const b = ::new (block) rcu_node_block{c.head};
  rcu_node_poison(b);
  c.head = b;
  ++c.count;
}

}  // namespace saferecl::detail
