// rcu_readers.cpp -- <rcu>, the reader side out of line: the registry of reader records (a
// thread links its static-TLS record on its first lock() and unlinks it at exit), the scan
// that grace periods run over it, and the slow paths of lock() and unlock().
#include "rcu_internal.hpp"

#include <sched.h>

namespace saferecl::detail {
namespace rcu_impl {

// ---------------------------------------------------------------- registry, thread exit
void registry_unlink(rcu_reader_tls* r) noexcept {  // reg_lock held
  if (r->prev) r->prev->next = r->next; else g.registry = r->next;
  if (r->next) r->next->prev = r->prev;
  r->prev = r->next = nullptr;
}
void registry_link(rcu_reader_tls* r) noexcept {  // reg_lock held
  r->prev = nullptr;
  r->next = g.registry;
  if (g.registry) g.registry->prev = r;
  g.registry = r;
}

// MR-39: a first lock links its record without the registry lock; between its read of the
// head and its store, another thread's record linked meanwhile is lost.
void registry_link_unlocked(rcu_reader_tls* r) noexcept {
  rcu_reader_tls* head = g.registry;
  r->prev = nullptr;
  r->next = head;
  SAFERECL_MUTANT_WIDEN_WINDOW();
  if (head) head->prev = r;
  g.registry = r;
}

// pthread key destructor: glibc runs these after every C++ thread_local destructor, and
// before the thread's static TLS (which holds the record) is released.
// MR-96: set once a reader thread's exit has handed its state over to the domain.
std::atomic<bool> g_mutant_handed_over{false};

void thread_exit(void* p) noexcept {
  auto* r = static_cast<rcu_reader_tls*>(p);
  if (SAFERECL_MUTANT("MR-96")) g_mutant_handed_over.store(true, std::memory_order_release);
  g.reg_lock.lock();
  if (SAFERECL_MUTANT("MR-15")) {  // the dead thread's entry stays, showing a stale region
    auto* z = new rcu_reader_tls;
    z->ctr.store(acc::gp_ctr(rcu_default_domain()).load(std::memory_order_relaxed));
    registry_link(z);
  }
  // MR-63: the record stays linked, marked quiescent below, to be skipped by scans; but its
  // static TLS is the next thread's, whose start re-initializes the links the list runs through.
  if (!SAFERECL_MUTANT("MR-63")) registry_unlink(r);
  g.reg_lock.unlock();
  // Not in a region unless the thread exits inside one (UB); a later lock() registers again.
  r->ctr.store(kRcuUnregistered, std::memory_order_relaxed);
}


// ---------------------------------------------------------------------------- registry
// Scan: is some reader inside a region that the current wait must outlast? `cur` is the
// domain word; a region blocks when it is active and began in the other phase.
// MR-05: the grace period reads the word as if the depth were a 16-bit field packed below
// the phase, so depth 2^16 carries into the phase (the region looks over, or new).
inline u64 narrow_view(u64 c) noexcept {
  return ((c & kRcuPhaseBit) ^ ((c & 0x10000) << 47)) | (c & 0xFFFF);
}

bool any_blocking_reader(u64 cur, bool lock_held) noexcept {
  const bool by_fence = SAFERECL_MUTANT("NB-R20");  // conforming: relaxed scan between fences
  const std::memory_order order = SAFERECL_MUTANT("MR-08") || by_fence
                                      ? std::memory_order_relaxed  // MR-08: no acquire
                                      : kScanLoad;
  bool blocking = false;
  if (!lock_held) g.reg_lock.lock();
  if (by_fence) std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with the reader's
  for (rcu_reader_tls* p = g.registry; p; p = p->next) {
    u64 c = p->ctr.load(order);
    if (SAFERECL_MUTANT("MR-05")) c = narrow_view(c);
    if ((c & kRcuDepthMask) == 0 && !SAFERECL_MUTANT("MR-35")) continue;  // MR-35: idle = phase 0
    if (((c ^ cur) & kRcuPhaseBit) != 0 || SAFERECL_MUTANT("MR-23")) { blocking = true; break; }
  }
  if (by_fence && !SAFERECL_MUTANT("MR-70"))  // MR-70: the acquire half of the pair is gone
    std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!lock_held) g.reg_lock.unlock();
  return blocking;
}

}  // namespace rcu_impl

using namespace rcu_impl;

void rcu_lock_slow(rcu_domain& d) noexcept {
  std::atomic<u64>& w = tls_rcu_reader.ctr;
  u64 c = w.load(std::memory_order_relaxed);
  if (c == kRcuUnregistered) {  // the thread's first region: link its record
    ensure_init();              // decides the fence mode first
    if (SAFERECL_MUTANT("MR-34")) mutant_allocate(sizeof(rcu_reader_tls));  // heap record
    if (SAFERECL_MUTANT("MR-39")) {
      registry_link_unlocked(&tls_rcu_reader);
    } else {
      g.reg_lock.lock();
      registry_link(&tls_rcu_reader);
      g.reg_lock.unlock();
    }
    if (g_exit_key_ok) (void)::pthread_setspecific(g_exit_key, &tls_rcu_reader);
    c = g_symmetric ? kRcuSymmetricIdle : 0;
    w.store(c, std::memory_order_relaxed);
    if (c == 0) { d.lock(); return; }  // membarrier mode: the inline path from now on
  }
  if (SAFERECL_MUTANT("MR-06")) c &= ~kRcuDepthMask;
  if ((c & kRcuDepthMask) == 0) {  // symmetric mode, outermost
    const u64 g_word = acc::gp_ctr(d).load(std::memory_order_relaxed);
    SAFERECL_MUTANT_WIDEN_WINDOW();
    w.store(g_word | kRcuSpecialBit, kRcuPublish);
    if (!SAFERECL_MUTANT("MR-07")) full_fence();
  } else {  // symmetric mode, nested
    w.store(c + 1, kRcuPublish);
  }
}

// A grace period sleeps (rcu.hpp, "Oversubscription"): the end of a region it may be
// waiting for -- one that began in the other phase than the domain's -- wakes it, (d); any
// other end would wake it for nothing. Either way the thread then yields the processor, once
// per sleep of the grace period, outside its regions: on an oversubscribed machine that lets
// the readers preempted inside a region run sooner, and leaves this one descheduled where it
// holds nothing up.
void rcu_unlock_slow(rcu_domain& d, u64 region) noexcept {
  std::atomic<u32>& flags = acc::flags(d);
  if ((flags.load(std::memory_order_acquire) & kRcuWriterWaiting) != 0) {
    const u64 cur = acc::gp_ctr(d).load(std::memory_order_relaxed);  // after the flag: (d)
    if (((region ^ cur) & kRcuPhaseBit) != 0 &&
        (flags.fetch_and(~kRcuWriterWaiting, std::memory_order_acq_rel) & kRcuWriterWaiting) != 0) {
      g.gp_futex.fetch_add(1, std::memory_order_release);
      futex_wake_all(g.gp_futex);
    }
    const u32 sleep = g.gp_sleeps.load(std::memory_order_relaxed);
    if (tls_rcu_reader.yielded_at != sleep) {
      tls_rcu_reader.yielded_at = sleep;
      (void)::sched_yield();
    }
  }
  if (t_in_executor) return;  // an unlock inside a deleter runs nothing
  if (SAFERECL_MUTANT("NB-R2")) return;  // conforming: only rcu_barrier runs deleters
  if (SAFERECL_MUTANT("NB-R11")) return;  // NB-R11, conforming: only retire and barrier run them
  if (callback_worker_runs()) return;     // NB-R4, conforming: only the worker runs them
  if ((flags.load(std::memory_order_relaxed) & kRcuCallbacksReady) != 0) run_ready(d, false);
}

void rcu_unlock_outermost_slow(rcu_domain& d) noexcept {
  const u64 c = tls_rcu_reader.ctr.load(std::memory_order_relaxed);
  tls_rcu_reader.ctr.store(c & kRcuSpecialBit, kRcuPublish);  // 0, or the symmetric idle word
  full_fence();  // symmetric mode's light fence (d)
  if ((c & kRcuOwesBit) != 0 && !t_in_executor && pending_count() >= kRcuRetireThreshold) {
    rcu_unlock_slow(d, c);  // wake a sleeping grace period first: it may be waiting for us
    drive_and_run(d);    // the drive this thread owes since it retired inside its region
    return;
  }
  if (acc::flags(d).load(std::memory_order_seq_cst) != 0) rcu_unlock_slow(d, c);
}

// MR-40: every lock() counts itself in a plain domain-wide statistic (a data race).
unsigned long g_mutant_regions_opened = 0;
void mutant_count_region() noexcept { ++g_mutant_regions_opened; }

// MR-96: an exiting reader hands its batch of callbacks over to the domain's queue and leaves
// the queue's tail linked to itself; every rcu_obj_base::retire after that walks the cycle
// for the tail, forever (the walk is modelled: a spin on the flag its exit set).
void mutant_walk_handed_over() noexcept {
  while (rcu_impl::g_mutant_handed_over.load(std::memory_order_acquire)) rcu_impl::cpu_relax();
}

}  // namespace saferecl::detail
