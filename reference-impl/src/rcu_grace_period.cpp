// rcu_grace_period.cpp -- <rcu>, the grace-period engine: waiting for the readers of a
// phase (spin, then sleep on a futex that their outermost unlock() wakes), the two-phase
// flip, grace periods begun early by a retire, and driving grace periods until a target
// that concurrent callers share; rcu_synchronize.
#include "rcu_internal.hpp"

#include <chrono>

namespace saferecl::detail {
namespace rcu_impl {

// MR-95: a reader that has blocked a grace period for this long is presumed dead (a thread
// that exited or was killed inside its region) and the grace period proceeds without it.
constexpr auto kPresumedDead = std::chrono::seconds(1);

void wait_for_readers(rcu_domain& d) noexcept {
  std::atomic<u32>& flags = acc::flags(d);
  const u64 cur = acc::gp_ctr(d).load(std::memory_order_relaxed);  // written only by us
  const bool hold = SAFERECL_MUTANT("MR-16");  // registry lock held across the whole wait
  if (hold) g.reg_lock.lock();
  const bool give_up = SAFERECL_MUTANT("MR-95");
  const auto began = std::chrono::steady_clock::now();
  for (unsigned round = 0;; ++round) {
    if (!any_blocking_reader(cur, hold)) break;
    if (give_up) {  // sleeps in short steps to look at the clock, then stops waiting
      if (std::chrono::steady_clock::now() - began > kPresumedDead) break;
      ::usleep(1000);
      continue;
    }
    if (SAFERECL_MUTANT("MR-17")) { cpu_relax(); continue; }  // busy-wait: spins, never sleeps
    if (round < kSpinScans) { cpu_relax(); continue; }
    // Sleep, ordering argument (d): the futex word is read before the rescan.
    u32 seen = g.gp_futex.load(std::memory_order_acquire);
    g.gp_sleeps.fetch_add(1, std::memory_order_relaxed);  // readers yield once per sleep
    flags.fetch_or(kRcuWriterWaiting, std::memory_order_seq_cst);
    heavy_fence();
    if (!any_blocking_reader(cur, hold)) break;
    SAFERECL_MUTANT_WIDEN_WINDOW();  // between the rescan and the sleep (MR-18)
    if (SAFERECL_MUTANT("MR-18")) seen = g.gp_futex.load(std::memory_order_acquire);  // late
    futex_wait(g.gp_futex, seen);
  }
  if (hold) g.reg_lock.unlock();
  flags.fetch_and(~kRcuWriterWaiting, std::memory_order_relaxed);
}


// heavy fence (a)), flip (after no reader of the previous phase is left, (c)), and finish
// (after no reader of the phase before the flip is left). Normally one caller runs all three;
// begin_grace_period_early lets a retire run the first two when they need no wait, so that
// regions beginning after the retire are already in the new phase and nothing waits for
// them (R4: neither a later reader nor a barrier called inside a later region).
void start_grace_period() noexcept {
  const u64 s = g.gp_seq.load(std::memory_order_relaxed);
  g.gp_seq.store(s + 1, std::memory_order_seq_cst);
  if (!SAFERECL_MUTANT("MR-07")) heavy_fence();  // (a)
  g.stage = rcu_state::gp_stage::started;
}

// Flips the phase once no stale reader is left; waits for them when `may_wait`, otherwise
// returns false (the grace period stays started) if there is one.
bool flip_phase(rcu_domain& d, bool may_wait) noexcept {
  if (!SAFERECL_MUTANT("MR-03")) {  // stale readers, (c)
    if (may_wait)
      wait_for_readers(d);
    else if (any_blocking_reader(acc::gp_ctr(d).load(std::memory_order_relaxed), false))
      return false;
  }
  std::atomic<u64>& word = acc::gp_ctr(d);
  word.store(word.load(std::memory_order_relaxed) ^ kRcuPhaseBit, std::memory_order_seq_cst);
  g.stage = rcu_state::gp_stage::flipped;
  return true;
}

// NB-R30 (conforming): a grace period flips the phase four times, not twice, waiting after
// each flip for the readers of the phase before it, as designs with more than two reader
// phases (or counter-based ones that flip until a round finds no reader) do.
constexpr int kExtraFlips = 2;

void finish_grace_period(rcu_domain& d) noexcept {
  wait_for_readers(d);  // readers of the old phase
  for (int i = 0; SAFERECL_MUTANT("NB-R30") && i < kExtraFlips; ++i) {
    std::atomic<u64>& word = acc::gp_ctr(d);
    word.store(word.load(std::memory_order_relaxed) ^ kRcuPhaseBit, std::memory_order_seq_cst);
    wait_for_readers(d);
  }
  const u64 done = g.gp_seq.load(std::memory_order_relaxed) + 1;
  if (SAFERECL_MUTANT("MR-36"))  // "guarded by gp_lock": a plain store, read outside the lock
    *reinterpret_cast<volatile u64*>(&g.gp_seq) = done;
  else
    g.gp_seq.store(done, std::memory_order_seq_cst);
  g.stage = rcu_state::gp_stage::idle;
  publish_ready_hint(d);
}

// One grace period (or the rest of one that a retire began); gp_lock held.
void run_grace_period(rcu_domain& d) noexcept {
  if (g.stage == rcu_state::gp_stage::idle) start_grace_period();
  if (g.stage == rcu_state::gp_stage::started) (void)flip_phase(d, true);
  finish_grace_period(d);
}


void release_gp_lock() noexcept {
  g.gp_lock.unlock();
  g.gp_turns.fetch_add(1, std::memory_order_seq_cst);
  if (g.gp_turn_waiters.load(std::memory_order_seq_cst) != 0) futex_wake_all(g.gp_turns);
}

// Called by a retire after it took its snapshot of gp_seq, when it saw no grace period in
// progress (the test is inline, at the caller: most retires find one running): begin the
// one its evaluation waits for, as far as that needs no wait (start and flip). Never blocks,
// so it is safe inside a region and inside a deleter. At most one heavy fence per grace
// period: the stage, read under gp_lock, says whether another caller began it meanwhile.
void begin_grace_period_early(rcu_domain& d) noexcept {
  if (!g.gp_lock.try_lock()) return;
  if (g.stage == rcu_state::gp_stage::idle &&
      !any_blocking_reader(acc::gp_ctr(d).load(std::memory_order_relaxed), false)) {
    start_grace_period();
    (void)flip_phase(d, false);
  }
  release_gp_lock();
}

// Returns once gp_seq has reached `target`, running grace periods itself whenever gp_lock
// is free. A caller that finds gp_lock taken does not queue on it: gp_lock is not fair, and
// a thread that synchronizes in a loop could take it again and again while the queued one
// sleeps (seen: one synchronizer starved for 2 s while another completed 2000 grace
// periods). It sleeps on gp_turns instead and rechecks gp_seq at each release, so the
// grace periods that others run count for it too. No lost wake-up: the waiter is counted
// and reads gp_turns before its try_lock fails, and the holder's release bumps gp_turns
// and reads the count after its unlock (all seq_cst), so either the waiter's futex_wait
// sees the bump or the release sees the waiter and wakes it.
void drive_until(rcu_domain& d, u64 target) noexcept {
  while (g.gp_seq.load(std::memory_order_acquire) < target) {
    g.gp_turn_waiters.fetch_add(1, std::memory_order_seq_cst);
    const u32 seen = g.gp_turns.load(std::memory_order_seq_cst);
    if (g.gp_lock.try_lock()) {
      g.gp_turn_waiters.fetch_sub(1, std::memory_order_relaxed);
      if (g.gp_seq.load(std::memory_order_relaxed) < target) run_grace_period(d);
      release_gp_lock();
      continue;
    }
    full_fence();  // the failed try_lock, then gp_seq
    if (g.gp_seq.load(std::memory_order_acquire) < target) futex_wait(g.gp_turns, seen);
    g.gp_turn_waiters.fetch_sub(1, std::memory_order_relaxed);
  }
}


}  // namespace rcu_impl

using namespace rcu_impl;  // for saferecl::rcu_synchronize's detail:: names

}  // namespace saferecl::detail

namespace saferecl {

void rcu_synchronize(rcu_domain& d) noexcept {
  if (SAFERECL_MUTANT("MR-01")) return;  // busted synchronize
  detail::ensure_init();
  if (SAFERECL_MUTANT("MR-33")) detail::mutant_allocate(sizeof(detail::inflight_ticket));  // waiter
  if (SAFERECL_MUTANT("MR-41"))  // sleeps for a reader's wake-up before looking for readers
    detail::futex_wait(detail::g.gp_futex, detail::g.gp_futex.load(std::memory_order_acquire));
  detail::light_fence();  // (a): the caller's prior stores before the snapshot
  const std::uint64_t s = detail::g.gp_seq.load(std::memory_order_seq_cst);
  detail::drive_until(d, SAFERECL_MUTANT("MR-19") ? detail::target_joining(s)
                                                  : detail::target_after(s));
  // Conforming variant: also run whatever that grace period made ready.
  if (SAFERECL_MUTANT("NB-R1") && !detail::t_in_executor) detail::run_ready(d, true);
}

}  // namespace saferecl
