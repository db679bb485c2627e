// rcu_node_cache.cpp -- <rcu>, the slow paths of the thread's node cache
// (saferecl/detail/rcu_node_cache.hpp): opening it on the first block given back, the
// block beyond its capacity, and releasing it at thread exit.
#include "rcu_internal.hpp"

namespace saferecl::detail {
namespace rcu_impl {

// The key's destructor: glibc runs it at thread exit, while the static TLS is still there.
void close_node_cache(void*) noexcept {
  rcu_node_cache& c = tls_rcu_node_cache;
  c.phase = rcu_node_cache_phase::closed;
  c.capacity = 0;
  while (rcu_node_block* b = c.head) {
    rcu_node_unpoison(b);
    c.head = b->next;
    ::operator delete(b);
  }
  c.count = 0;
}

// Opens the cache when the thread-exit hook can be set, which then empties it.
void open_node_cache(rcu_node_cache& c) noexcept {
  ensure_init();
  c.phase = rcu_node_cache_phase::closed;  // unless the hook is set
  if (!g_node_cache_key_ok || ::pthread_setspecific(g_node_cache_key, &c) != 0) return;
  c.phase = rcu_node_cache_phase::open;
  c.capacity = kRcuNodeCacheCap;
}

}  // namespace rcu_impl

using namespace rcu_impl;

void rcu_node_give_slow(void* block) noexcept {
  rcu_node_cache& c = tls_rcu_node_cache;
  if (c.phase == rcu_node_cache_phase::unopened) open_node_cache(c);
  if (c.count < c.capacity) return rcu_node_give(block);
  ::operator delete(block);
}

}  // namespace saferecl::detail
