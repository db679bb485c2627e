// saferecl/rcu.hpp -- read-copy update, the C++26 <rcu> facility (P2545R4), namespace saferecl.
//
// ==================================================================================== design
//
// READERS. Each thread's reader record lives in static TLS (detail/rcu_reader.hpp: an
// initial-exec, constant-initialized, trivially destructible thread_local), so lock() and
// unlock() reach it with one %fs-relative access and no call. It holds one 64-bit word:
// bit 63 the phase in which the current region began, bit 62 "special" (take the
// out-of-line path), bit 61 "owes work", bits 0-60 the nesting depth. A registered thread's
// quiescent word is exactly 0. An unregistered thread's word is a special value, so its
// first lock() goes out of line, links the record into the domain's registry and starts
// over: no allocation (lock() cannot fail or terminate), and no wait behind a grace period
// (grace periods hold the registry lock for one scan, never while sleeping). A pthread key
// destructor unlinks the record at thread exit; glibc runs it after every C++ thread_local
// destructor and before the TLS block is released, so lock/unlock work in thread_local
// destructors (a later use simply registers again).
//   lock():   word == 0      -> store(domain word = current phase | depth 1);
//                               compiler barrier                       [light fence]
//             depth>0        -> store(word + 1)
//             special        -> out of line (register; or symmetric mode, below)
//   unlock(): word == phase|1 -> store(0); compiler barrier; if (domain flags) slow()
//             depth>1        -> store(word - 1)
//             otherwise      -> out of line (depth 1 with the special or owes bit)
// No read-modify-write, no fence instruction, no call on the common paths (15 instructions
// per flat pair on x86-64: 4 loads, 2 stores, 4 predicted branches). The stored values of a
// flat region do not depend on the previous word, so back-to-back regions carry no
// dependency chain through memory. The light/heavy fence pair is the one of
// detail/asymmetric_fence.hpp; its mode test is folded into the word: the mode is decided
// before a thread's first region, and without membarrier ("symmetric" mode) every thread's
// word carries the special bit, so its lock() and outermost unlock() run out of line and
// issue the seq_cst fence that light_fence() would. 61 depth bits: nesting cannot reach
// the flag or phase bits.
//
// GRACE PERIODS (two-phase flip, serialized by a futex mutex). A grace period:
//   1. advances the sequence number gp_seq to odd ("in progress");
//   2. heavy_fence()  (membarrier PRIVATE_EXPEDITED);
//   3. waits until no reader is in a region of the *other* phase (stale readers: a reader
//      that loaded the domain word before an earlier flip but published it later);
//   4. flips the domain's phase bit;
//   5. waits until no reader is in a region of the old phase;
//   6. advances gp_seq to even ("completed").
// Readers that begin after step 4 carry the new phase and are never waited for, so readers
// that keep entering regions cannot starve a grace period; only regions that may have begun
// before the grace period are waited for (a region that began between 1 and 4 may be waited
// for too: that is bounded). Waiting spins briefly (128 scans with a pause, no sched_yield,
// which would hand a busy reader a whole time slice) and then sleeps on a futex: it sets
// "writer waiting" in the domain flags, issues heavy_fence(), rescans, and sleeps. Every
// outermost unlock() that sees the flag goes out of line; the one that ends a region the
// wait may be waiting for (a region of the other phase than the domain's) clears the flag
// and wakes the writer (one wake per sleep). The end of a region of the current phase does
// not: such a wake-up would be for nothing, and a writer woken by every unlock never sleeps.
//
// OVERSUBSCRIPTION. With more busy threads than cores, a reader is preempted wherever its
// time slice ends -- inside a region as likely as not, when its loop is mostly region -- and
// a grace period that began meanwhile waits until the scheduler runs it again: a whole round
// of the run queue, ~N x 3 ms / cores with N busy threads (measured on 2 cores at 16
// spinning readers: 72 ms median, blocked by 1.6 preempted readers per grace period, 50 ms
// each; at 64 readers 357 ms). The writer made it worse: every unlock woke it, so its futex
// sleep returned at once (~195 wake-ups and membarriers per grace period) and it competed
// for the cores as one more busy thread (16 readers, 3 s: 0.19 s on a core, 2.9 s waiting
// for one). Two measures: only the end of an awaited region wakes the writer (above), and
// an outermost unlock() that finds the writer asleep yields the processor (sched_yield),
// once per sleep of the writer. A yielding reader is descheduled outside its regions, where
// it holds no grace period up, and the readers preempted inside one get the core sooner.
// The read side's fast path is unchanged; the yield is one system call per reader per
// writer sleep, which returns at once on a core with nothing else to run.
// rcu_synchronize() takes a snapshot target of gp_seq (the end of the next grace period that
// starts after the call) and drives grace periods until gp_seq reaches it. Callers that
// arrive while a grace period runs do not queue on the mutex, which is not fair: they sleep
// on a counter bumped at each release and recheck gp_seq, so whichever grace period reaches
// their target releases them. Concurrent synchronizers share grace periods (and their heavy
// fences), and one that loops cannot starve the others.
//
// CALLBACKS. retire() and rcu_retire() append a node to the calling thread's own FIFO queue
// (in its TLS, under a lock only collectors contend for), tagged with the snapshot target of
// gp_seq; every 64 appends the thread moves its queue into the domain's FIFO queue in one
// splice under the domain's queue lock, and rcu_barrier collects every thread's queue
// (src/rcu_callbacks.cpp, whose design comment argues barrier reach, hand-over at thread
// exit and fork). rcu_obj_base embeds its node, so retire() never allocates and cannot
// fail; rcu_retire() puts node + pointer + deleter in one block, obtained before the deleter
// is moved, so a bad_alloc or a throwing move leaves nothing scheduled and the caller owning
// p. The block comes from the
// thread's node cache when the node fits 64 bytes (deleters of up to 16 bytes), else from
// new: the thread that runs a node gives its block back to its own cache
// (detail/rcu_node_cache.hpp), so a thread that retires and runs reuses blocks without the
// heap. A node is runnable when gp_seq reaches its target, i.e. after a whole grace period
// that began after it was queued. Executors detach the domain queue's runnable prefix (the
// whole queue once gp_seq reaches the largest target queued: detached without a walk
// through the nodes) under the lock, register an in-flight ticket (the prefix's position in
// the queue), drop the lock, run the deleters, then remove the ticket under the lock and
// wake sleeping barriers.
// Executors: retire / rcu_retire outside any region (runnable nodes; and once more than
// kRcuRetireThreshold (1024) evaluations are pending, the retiring thread drives a grace
// period first -- which bounds the queue), the outermost unlock() (runnable nodes only, and
// the drive it owes if it retired past the threshold inside its region), and rcu_barrier().
// A retire inside a region, or inside a deleter, never runs or waits: it only queues. No
// internal lock is held while a deleter runs, so a deleter may call rcu_retire, retire,
// lock/unlock and rcu_synchronize. Each node is detached exactly once, so runs exactly once.
//
// rcu_barrier() moves every thread's queue into the domain queue, notes its end position T,
// drives grace periods until every node before T is runnable, runs them (or lets others run
// them), and then sleeps on a futex until no in-flight ticket older than T remains: it returns after every earlier evaluation has
// *finished*, including those another thread was running. All completion state lives in the
// domain (counters and a futex word), never on a caller's stack.
//
// THREADS, FORK, EXIT. No background thread. A thread's exit moves its queue into the domain
// queue (a pthread key destructor) and unlinks its record, so it loses nothing and an exited
// thread never blocks a grace period. pthread_atfork: the child keeps only the forking
// thread's record and queue, moves the other threads' queues into the domain queue, forgets
// evaluations that other threads were running, resets the locks and abandons an in-flight
// grace period.
// All state is constant-initialized and trivially destructible, so the facility works during
// static initialization and destruction (evaluations still pending at exit are not run; they
// stay reachable, so leak checkers do not report them).
//
// GUARANTEES / COSTS (x86-64, membarrier available).
//   lock+unlock pair:  ~1 ns; nested pair ~2.5 ns (its depth is a store-to-load chain).
//   rcu_synchronize:   one membarrier (0.3 us alone, ~11 us with other threads running) plus
//                      two registry scans when no reader is in the way. Beside 16 or 64
//                      threads spinning in regions on 2 cores: see the top README's
//                      benchmark section (rcu/synchronize/readers:N).
//   retire:            the thread's own queue lock (uncontended); per 64 retires one splice
//                      under the domain's queue lock; per 1024 outside regions one grace
//                      period.
//   rcu_retire:        retire plus a block from the thread's cache (a few TLS loads and
//                      stores), or one allocation when it is empty or the node is larger
//                      than 64 bytes; a null p and any move-constructible, callable-with-T*
//                      deleter are accepted. rcu/retire_barrier: top README, Benchmarks.
//   Memory: pending evaluations stay below ~1024 + 64 per retiring thread while callers
//   retire outside regions; readers holding regions forever hold back reclamation. Each
//   thread that runs deleters keeps up to 1024 free 64-byte blocks, released at its exit.
// The design supports exactly one domain (the standard offers no way to create another).
//
// MEMORY ORDERING.
// (a) Unlink vs. entry (StoreLoad). An updater unlinks (store), then a grace period issues
//     heavy_fence() before reading any reader word. The reader stores its word, then
//     light_fence(), then loads the shared pointer. membarrier runs a full barrier on every
//     running thread of the process between its start and its return: if that barrier falls
//     after the reader's store, the scan (after the membarrier) sees the reader; otherwise
//     every later load of the reader sees the unlink. A record linked after a scan took the
//     registry lock was linked after the heavy fence (lock order), so its thread's loads
//     happen after the unlink. The retirer's snapshot of gp_seq follows light_fence(): a
//     grace period that the snapshot did not see start has its heavy fence after the unlink.
// (b) Region end vs. reclamation (happens-before). Every store to a reader word is a release
//     store and every scan load is an acquire load, so reading any value of a reader word
//     (0, a later region, a nested depth) makes the reader's earlier regions happen before
//     the scan; gp_seq is published with seq_cst and read with acquire/seq_cst before a
//     deleter runs; the ticket is removed under the queue lock before a barrier can observe
//     it gone. Hence region end -> rcu_synchronize return, and deleter -> rcu_barrier return.
// (c) Stale phase. A reader may load the domain word, be delayed, then publish a phase that
//     was flipped meanwhile. Step 3 waits such readers out before the flip of the next grace
//     period can make them look "current"; step 5 catches those that published before
//     the scan. A region that published after the step-5 scan began after the heavy fence
//     of step 2 as far as the reader's loads are concerned (a), so it cannot hold a pointer
//     unlinked before this grace period.
// (d) Writer sleep vs. reader wake-up (StoreLoad both ways). The writer sets "waiting", runs
//     heavy_fence(), rescans and then sleeps on a futex word read *before* the rescan; the
//     reader stores 0, light_fence(), loads the flags. Either the rescan sees the reader
//     leave, or the reader sees the flag and bumps the futex word, so the sleep returns. A
//     reader that sees the flag reads the domain word after it (acquire), so it reads the
//     phase of the sleeping wait or of a later one; the wait is for regions of the other
//     phase, so a region of the phase read was not awaited by it (or the wait is over: the
//     next flip comes only after it), and only a region of the other phase needs to wake it.
// (e) Without membarrier the special bit makes readers issue a seq_cst fence after publishing
//     (and before loading the flags, out of line), heavy_fence() is a seq_cst fence, and
//     (a)/(d) are the classic SC-fence Dekker arguments. Under ThreadSanitizer, which does not model fences, reader stores,
//     the flags load and the scan loads are seq_cst operations, so TSan sees the
//     happens-before of (b) directly (and the StoreLoad steps are seq_cst on both sides).
//
// Mutation points (SAFERECL_MUTANT("MR-xx"), catalog: spec/mutants.md section 4.2) are
// one-liners; in the normal build they are the constant false and compile away.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "saferecl/detail/config.hpp"
#include "saferecl/detail/mutation.hpp"
#include "saferecl/detail/rcu_node_cache.hpp"
#include "saferecl/detail/rcu_reader.hpp"

#define SAFERECL_LIB_RCU 202306L

namespace saferecl {

class rcu_domain;
rcu_domain& rcu_default_domain() noexcept;
void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
template <class T, class D = std::default_delete<T>>
void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain());

template <class T, class D = std::default_delete<T>>
class rcu_obj_base;

namespace detail {

// T is rcu-protectable for D: rcu_obj_base<T, D> is a public, unambiguous (hence exactly one),
// non-virtual base of T, and T has no base rcu_obj_base<X, Y> of another type. The last part
// uses a private member type that every rcu_obj_base declares: its lookup in T is ambiguous
// exactly when T has rcu_obj_base bases of two different types.
template <class T>
struct rcu_base_probe {
  template <class B>
  static constexpr bool only_base() noexcept {
    if constexpr (requires { typename T::saferecl_rcu_base_tag_; })
      return std::is_same_v<typename T::saferecl_rcu_base_tag_, B>;
    else
      return false;
  }
};
template <class T, class D>
inline constexpr bool rcu_has_base_v = std::is_base_of_v<rcu_obj_base<T, D>, T>;
template <class T, class D>
inline constexpr bool rcu_public_unique_base_v = std::is_convertible_v<T*, rcu_obj_base<T, D>*>;
template <class T, class D>
inline constexpr bool rcu_nonvirtual_base_v =
    requires(rcu_obj_base<T, D>* b) { static_cast<T*>(b); };
template <class T, class D>
inline constexpr bool rcu_no_other_base_v =
    rcu_base_probe<T>::template only_base<rcu_obj_base<T, D>>();

// The node that rcu_retire makes: one block holds the node, p and the deleter -- from the
// thread's node cache when the node fits one (detail/rcu_node_cache.hpp), else from new.
template <class T, class D>
struct rcu_retire_node final : rcu_cb_node {
  rcu_retire_node(T* p, D&& d) : rcu_cb_node{}, ptr(p), deleter(std::move(d)) {
    this->invoke = &run;
  }
  static constexpr bool fits_block() noexcept {
    return sizeof(rcu_retire_node) <= kRcuNodeBlock &&
           alignof(rcu_retire_node) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__;
  }
  // Gets the block before it moves d: a bad_alloc, or a throwing move, schedules nothing.
  static rcu_retire_node* make(T* p, D&& d) {
    if constexpr (!fits_block()) {
      return new rcu_retire_node(p, std::move(d));
    } else {
      void* const block = rcu_node_take();
      try {
        return ::new (block) rcu_retire_node(p, std::move(d));
      } catch (...) {
        rcu_node_give(block);
        throw;
      }
    }
  }
  static void run(rcu_cb_node* n) noexcept {
    auto* self = static_cast<rcu_retire_node*>(n);
    self->deleter(self->ptr);
    if (SAFERECL_MUTANT("MR-50")) std::destroy_at(&self->deleter);  // and again below
    if (!SAFERECL_MUTANT("MR-51")) std::destroy_at(self);  // MR-51: d1 never destroyed
    free_block(self);
  }
  static void free_block(rcu_retire_node* self) noexcept {
    if constexpr (fits_block()) rcu_node_give(self);
    else std::allocator<rcu_retire_node>().deallocate(self, 1);
  }
  T* ptr;
  [[no_unique_address]] D deleter;
};

}  // namespace detail

// --------------------------------------------------------------------------- rcu_obj_base
template <class T, class D>
class rcu_obj_base {
 public:
  void retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept;

 protected:
  rcu_obj_base() = default;
  rcu_obj_base(const rcu_obj_base&) = default;
  rcu_obj_base(rcu_obj_base&&) = default;
  rcu_obj_base& operator=(const rcu_obj_base&) = default;
  rcu_obj_base& operator=(rcu_obj_base&&) = default;
  ~rcu_obj_base() noexcept = default;

 private:
  template <class>
  friend struct detail::rcu_base_probe;
  using saferecl_rcu_base_tag_ = rcu_obj_base;  // see detail::rcu_base_probe

  static void saferecl_run_(detail::rcu_cb_node* n) noexcept {
    T* x = static_cast<T*>(n->obj);
    D& deleter = static_cast<rcu_obj_base*>(x)->saferecl_deleter_;
    if (SAFERECL_MUTANT("MR-38")) { D taken; taken = std::move(deleter); }  // moved out first
    if (SAFERECL_MUTANT("MR-52")) return detail::mutant_run_destroying_stored(deleter, x);
    deleter(x);
  }

  detail::rcu_cb_node saferecl_node_;  // written by retire(); copying it copies dead bits
  [[no_unique_address]] D saferecl_deleter_;
};

template <class T, class D>
void rcu_obj_base<T, D>::retire(D d, rcu_domain& dom) noexcept {
  static_assert(detail::rcu_has_base_v<T, D>,
                "rcu_obj_base<T, D>::retire: T is not rcu-protectable: it must derive from "
                "rcu_obj_base<T, D>");
  static_assert(detail::rcu_public_unique_base_v<T, D>,
                "rcu_obj_base<T, D>::retire: T is not rcu-protectable: its rcu_obj_base<T, D> "
                "base must be public and appear exactly once");
  static_assert(!detail::rcu_public_unique_base_v<T, D> || detail::rcu_nonvirtual_base_v<T, D>,
                "rcu_obj_base<T, D>::retire: T is not rcu-protectable: its rcu_obj_base<T, D> "
                "base must not be virtual");
  static_assert(!detail::rcu_public_unique_base_v<T, D> || detail::rcu_no_other_base_v<T, D>,
                "rcu_obj_base<T, D>::retire: T is not rcu-protectable: it must not have another "
                "rcu_obj_base<X, Y> base besides rcu_obj_base<T, D>");
  if constexpr (detail::rcu_has_base_v<T, D> && detail::rcu_public_unique_base_v<T, D> &&
                detail::rcu_nonvirtual_base_v<T, D> && detail::rcu_no_other_base_v<T, D>) {
    T* x = static_cast<T*>(this);  // the complete object, whatever unary operator& T has
    if (!SAFERECL_MUTANT("MR-27")) saferecl_deleter_ = std::move(d);  // MR-27: d dropped
    if (SAFERECL_MUTANT("MR-20")) {  // retire on top of an allocating path (terminates on OOM)
      rcu_retire(x, [](T* q) { static_cast<rcu_obj_base*>(q)->saferecl_deleter_(q); }, dom);
      return;
    }
    saferecl_node_.invoke = &saferecl_run_;
    saferecl_node_.obj = const_cast<void*>(static_cast<const volatile void*>(x));
    detail::rcu_enqueue(dom, &saferecl_node_);
    if (SAFERECL_MUTANT("MR-80")) detail::mutant_store_after_publish(saferecl_deleter_);
    if (SAFERECL_MUTANT("MR-96")) detail::mutant_walk_handed_over();
  }
}

// ----------------------------------------------------------------------------- rcu_domain
class rcu_domain {
 public:
  rcu_domain(const rcu_domain&) = delete;
  rcu_domain& operator=(const rcu_domain&) = delete;

  void lock() noexcept;
  bool try_lock() noexcept;
  void unlock() noexcept;

 private:
  constexpr rcu_domain() noexcept = default;
  friend rcu_domain& rcu_default_domain() noexcept;
  friend struct detail::rcu_domain_access;

  static rcu_domain s_default_;  // defined (constant-initialized) in src/rcu_process.cpp

  // Read by every outermost lock (gp_ctr_) and unlock (flags_); written once per grace
  // period (and per writer sleep). Kept on a line of their own.
  alignas(detail::kCacheLine) std::atomic<std::uint64_t> gp_ctr_{1};  // phase 0, depth 1
  std::atomic<std::uint32_t> flags_{0};
  char pad_[detail::kCacheLine - sizeof(std::atomic<std::uint64_t>) -
            sizeof(std::atomic<std::uint32_t>)] = {};
};

inline rcu_domain& rcu_default_domain() noexcept {
#if defined(SAFERECL_MUTATION_POINTS)  // MR-30: the domain's state kept per thread
  if (SAFERECL_MUTANT("MR-30")) { static thread_local constinit rcu_domain mine; return mine; }
  if (SAFERECL_MUTANT("MR-45")) {  // MR-45: found on first use behind a plain check, no once
    static rcu_domain* found = nullptr;
    if (found == nullptr) { SAFERECL_MUTANT_WIDEN_WINDOW(); found = &rcu_domain::s_default_; }
    return *found;
  }
  if (SAFERECL_MUTANT("MR-60")) {  // MR-60: made on first use behind a plain check: racing
    static rcu_domain* made = nullptr;  // first calls may each make one (the loser's leaks)
    if (made == nullptr) { SAFERECL_MUTANT_WIDEN_WINDOW(); made = new rcu_domain; }
    return *made;
  }
#endif
  return rcu_domain::s_default_;
}

inline void rcu_domain::lock() noexcept {
  if (SAFERECL_MUTANT("MR-40")) detail::mutant_count_region();  // a plain, shared statistic
  std::atomic<std::uint64_t>& w = detail::tls_rcu_reader.ctr;
  std::uint64_t c = w.load(std::memory_order_relaxed);
  if (SAFERECL_MUTANT("MR-06") && (c & detail::kRcuSpecialBit) == 0) c = 0;  // no nesting
  if (__builtin_expect(c == 0, 1)) {  // outermost: publish phase and depth 1
    const std::uint64_t g = gp_ctr_.load(std::memory_order_relaxed);
    SAFERECL_MUTANT_WIDEN_WINDOW();  // between reading the phase and publishing it (MR-03/19)
    if (SAFERECL_MUTANT("NB-R20")) { detail::rcu_enter_by_fence(w, g); return; }  // conforming
    w.store(g, detail::kRcuPublish);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // light fence (membarrier mode)
  } else if (__builtin_expect((c & detail::kRcuSpecialBit) == 0, 1)) {  // nested
    w.store(c + 1, detail::kRcuPublish);
  } else {  // first region of the thread, or symmetric mode
    detail::rcu_lock_slow(*this);
  }
}

inline bool rcu_domain::try_lock() noexcept {
  if (SAFERECL_MUTANT("MR-24")) return false;  // try_lock fails and opens no region
  lock();
  return true;
}

inline void rcu_domain::unlock() noexcept {
  std::atomic<std::uint64_t>& w = detail::tls_rcu_reader.ctr;
  const std::uint64_t c = w.load(std::memory_order_relaxed);
  if (__builtin_expect((c << 1) == 2, 1) && !SAFERECL_MUTANT("MR-06")) {  // depth 1, no bits
    if (SAFERECL_MUTANT("NB-R20")) detail::rcu_leave_by_fence(w);  // conforming
    else w.store(0, detail::kRcuPublish);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // light fence, membarrier mode
    if (__builtin_expect(flags_.load(detail::kRcuFlagsLoad) != 0, 0))
      detail::rcu_unlock_slow(*this, c);
  } else if (__builtin_expect((c & detail::kRcuDepthMask) != 1, 1) &&
             !SAFERECL_MUTANT("MR-06")) {  // nested
    w.store(c - 1, detail::kRcuPublish);
    if (SAFERECL_MUTANT("MR-11") && flags_.load(detail::kRcuFlagsLoad) != 0)  // inner unlock
      detail::rcu_unlock_slow(*this, c);                                     // runs callbacks
  } else {  // depth 1 in symmetric mode, or owing work
    detail::rcu_unlock_outermost_slow(*this);
  }
}

// ------------------------------------------------------------------------------ rcu_retire
template <class T, class D>
void rcu_retire(T* p, D d, rcu_domain& dom) {
  static_assert(std::is_move_constructible_v<D>,
                "rcu_retire(p, d, dom): the deleter type D must be move-constructible");
  static_assert(std::is_invocable_v<D&, T*&>,
                "rcu_retire(p, d, dom): d(p) must be well-formed (D must be callable with T*)");
  if constexpr (std::is_move_constructible_v<D> && std::is_invocable_v<D&, T*&>) {
    if (SAFERECL_MUTANT("MR-21")) {  // on failure, still evaluates d(p), then rethrows
      try {
        detail::rcu_enqueue(dom, detail::rcu_retire_node<T, D>::make(p, std::move(d)));
      } catch (...) {
        rcu_synchronize(dom);
        d(p);
        throw;
      }
      return;
    }
    if (SAFERECL_MUTANT("MR-32") && p == nullptr) return;  // "nothing to delete": d(p) skipped
    if (SAFERECL_MUTANT("MR-42") && p == nullptr) { d(p); return; }  // "nothing to protect": now
    if (SAFERECL_MUTANT("MR-43")) {  // an allocation failure is swallowed: nothing scheduled
      try { detail::rcu_enqueue(dom, detail::rcu_retire_node<T, D>::make(p, std::move(d))); }
      catch (const std::bad_alloc&) {}
      return;
    }
    if (SAFERECL_MUTANT("MR-44"))  // scheduled from a noexcept helper: a failure terminates
      return [&]() noexcept { detail::rcu_enqueue(dom, detail::rcu_retire_node<T, D>::make(p, std::move(d))); }();
    if constexpr (std::is_default_constructible_v<D>)  // MR-31: a fresh D() replaces d
      if (SAFERECL_MUTANT("MR-31")) return detail::rcu_enqueue(dom, detail::rcu_retire_node<T, D>::make(p, D()));
    detail::rcu_enqueue(dom, detail::rcu_retire_node<T, D>::make(p, std::move(d)));
  }
}

}  // namespace saferecl
