// saferecl/hazard_pointer.hpp -- reference implementation of <hazard_pointer>
// (C++26 [saferecl.hp], P2530R3, plus the C++29 batch functions of P3428R4).
//
// ============================================================================================
// OVERVIEW
// ============================================================================================
//
// A hazard pointer is a single-writer, multi-reader slot in which its owning thread
// publishes the address of an object it is about to read. An object that has been unlinked
// and retired is reclaimed (its deleter runs) only when no slot holds its address.
//
//   struct Node : saferecl::hazard_pointer_obj_base<Node> { int value; ... };
//   std::atomic<Node*> head;
//
//   saferecl::hazard_pointer h = saferecl::make_hazard_pointer();
//   Node* n = h.protect(head);          // n cannot be reclaimed until h moves on
//   use(n->value);
//   h.reset_protection();
//
//   Node* old = head.exchange(fresh);   // unlink first ...
//   old->retire();                      // ... then retire; reclaimed once unprotected
//
// ============================================================================================
// DATA STRUCTURES
// ============================================================================================
//
// Hazard records. Each hazard_pointer owns one record: a cache-line-sized slot holding
// `hazard` (the protected T*, or null) and an `in_use` flag. Records are allocated in
// blocks that are pushed (CAS) onto a global, lock-free registry and never freed, so a
// reclaimer can read every record without coordination and a record can never disappear
// under a reader, not even during static destruction. The registry never shrinks: R, the
// number of records, is the high-water mark of hazard pointers alive at once (rounded up to
// the block size).
//
// Record recycling. A released record goes back to a per-thread cache (kHazardCacheSize =
// 8 entries, plain thread-local array, no atomics). When the cache is empty,
// make_hazard_pointer claims up to 5 free records from the shared pool by CAS on `in_use`
// (false -> true) while walking the registry; when the pool is empty it allocates a new
// block. When the cache is full, a released record goes back to the pool (`in_use` =
// false). So make_hazard_pointer + ~hazard_pointer cost a few thread-local loads and stores
// as long as a thread owns at most 8 hazard pointers at a time.
//
// Retired objects. hazard_pointer_obj_base<T, D> carries an intrusive link (next, key, a
// type-erased reclaim function) plus the deleter, so retire() never allocates and is
// noexcept for real. retire() pushes the object onto its thread's private list; when that
// list reaches the threshold
//
//     theta(R) = max(4096, 2 * R)
//
// the thread runs a reclamation pass. A shared, lock-free list (CAS push, exchange take)
// collects the objects of exited threads and of retire() calls made after a thread's own
// state was torn down; every pass also takes the shared list.
//
// ============================================================================================
// RECLAMATION PASS (src/hazard_reclamation.cpp)
// ============================================================================================
//
//   1. detach the private list and take the shared list (exchange, acquire);
//   2. stamp the batch and choose what to scan (see "Batches wait for a shared heavy
//      fence" below): the batch of the previous pass if a heavy fence of another thread
//      covers it (this batch then waits in its place), else both batches after a heavy
//      fence of this thread's own (membarrier PRIVATE_EXPEDITED; see "ordering" below), or,
//      with no batch waiting, nothing: this batch waits for the next pass;
//   3. snapshot every non-null hazard of every record (acquire loads) into a sorted
//      array (a per-thread buffer reused across passes; if it cannot be allocated, each
//      object is compared against the records directly instead);
//   4. walk the detached objects once: an object whose key is in the snapshot is kept;
//   5. every other object is doomed: its deleter runs on this thread, exactly once, with
//      the complete-object pointer (the T*, which is also the key hazards are compared
//      with), never before the snapshot is complete: one per later retire of the thread
//      (see "Deleters run one per retire" below), or as the walk reaches it in the rounds
//      of step 7, in passes over the shared list alone and under TSan; one walk instead of
//      a split and a second walk over the doomed saves re-reading a list that no longer
//      fits in L1;
//   6. push the kept objects back onto the private list and refresh the threshold;
//   7. if deleters retired (the next node of a list, say) or left the list again at the
//      threshold, go to 1 (the rounds after the first scan at once: no batch waits in them,
//      and no deleter waits).
//
// No lock is taken anywhere. Passes on different threads work on disjoint lists (each list
// is owned by one thread, and the shared list is taken by an atomic exchange), so an object
// can never be reclaimed twice.
//
// Batches wait for a shared heavy fence. A batch may be scanned after any heavy fence that
// began after its stamp (taken once its last object was retired) and completed before the
// scan reads the hazards, whichever thread issued it. So a pass does not scan the batch it
// just detached: it stamps it and leaves it waiting. The next pass of the thread (after
// another theta retires) scans the waiting batch alone if a fence numbered at or above its
// stamp has begun (another thread's: waiting for it to complete if it is in progress), and
// leaves its own batch waiting instead; otherwise it issues one fence for both batches and
// scans both. A fence thus serves its issuer's two batches and every batch of another thread
// stamped before it began. Measured on a quiet machine (the hp/retire loop, 8,000,000
// retires in all, membarrier calls counted by perf): 0.244 fences per 1,000 retires before,
// at every thread count; 0.122, 0.120, 0.115 and 0.101 at 1, 2, 4 and 8 threads after. The
// halving is the waiting batch; a fence of another thread covered only 2-10% of the passes:
// scanning two batches takes longer than retiring one, so two threads retiring side by side
// fall into step with each one's batch waiting while the other scans, and the other's fence
// lands just before the stamp, not after it (README, Benchmarks).
//
// Deleters run one per retire. A pass leaves the objects it doomed on the thread's
// `reclaimable` list, and every later retire of the thread runs one of their deleters. The
// snapshot that doomed them stays valid however late that is: each was unlinked before the
// pass's fence, so a reader that protects it afterwards fails validation, and no hazard can
// come back for it. Why: the allocator. A pass that ran thousands of deleters at once
// overflowed glibc's per-thread cache (7 chunks a size) into its locked bins, and the `new`
// before each later retire took its chunk back from there: 75% of hp/retire's samples at 2
// threads were malloc and free. One delete per retire hands the next `new` the chunk just
// freed, from the thread cache, and a retire no longer stalls for a whole batch of
// deleters. What a pass doomed while an earlier pass's doomed still wait makes those run at
// once, so one pass's output waits at most. A deferred deleter that retires starts the
// cascade at once (step 7): the deleters still waiting run, and a pass scans without
// waiting, so a chain of links whose deleters retire the next drains as fast as before. A
// thread that exits hands its doomed objects to the shared list with its private list
// (scanned again there). Under TSan deleters run at the scan: TSan forgets old accesses as
// threads use up their epochs, and a deleter run thousands of retires later can find a
// racing reader's writes already forgotten (mutant MH-03 survived so; the conforming
// variant NB-H11 defers under TSan too).
//
// Re-entrancy. Deleters may retire objects, make, use and destroy hazard pointers, and
// allocate-protect-retire a child while it is protected. Objects retired during a pass go
// onto the (freshly detached) private list and are checked against a fresh snapshot in a
// later round or pass, like any other; a pass never nests (a flag turns the nested trigger
// into a no-op, and step 7 loops instead of recursing), so there is no deadlock and no
// unbounded recursion.
//
// Thread exit. The first use of the facility on a thread arms a pthread key whose
// destructor (after all C++ thread_local destructors of the thread) marks the thread's
// state dead, returns its cached records to the pool, and pushes its retired list onto the
// shared list; if the shared list has then reached theta(R), the exiting thread runs a pass
// over it. The per-thread state is trivially destructible and stays readable until the
// thread is gone, so a `thread_local` hazard_pointer destroyed in either order, or a
// pthread-key destructor that makes hazard pointers or retires objects after the hook ran,
// sees the `dead` flag and uses the shared pool and the shared list. The main thread never
// runs pthread-key destructors: its state stays alive through static destruction, and
// static-storage hazard pointers and retire() calls in static destructors use it normally.
// There is no background thread and no mutex, so fork() is safe at any time (the child
// simply never reclaims what other parent threads were holding).
//
// ============================================================================================
// COSTS (x86-64, membarrier available)
// ============================================================================================
//
//   protect / try_protect   relaxed load + release store + compiler barrier + acquire load
//                           + compare (the fence mode is bit 0 of the record pointer the
//                           hazard_pointer holds, so no extra load)
//   reset_protection        one release store
//   make_hazard_pointer     thread-local pop; slow path: CAS on free records, or allocate a
//                           block (the only allocation; may throw bad_alloc)
//   ~hazard_pointer         release store of null + thread-local push
//   retire                  thread-local push + compare + one deferred deleter (the next
//                           `new` of its size then takes the freed chunk from glibc's
//                           thread cache); every >= theta/2 retires one pass:
//                           a full fence, at most one membarrier (none if another thread's
//                           covers the batch) + O(R) loads + O(L log R) lookups for L
//                           objects, i.e. O(1) amortized per retired object
//   batches                 n records, all or nothing (strong exception guarantee)
//
// Without membarrier (old kernel, sandbox) light_fence is a seq_cst fence on every
// protect. Under ThreadSanitizer protect is a seq_cst store + seq_cst load and a pass uses a
// seq_cst fence + seq_cst loads: TSan does not model fences, but it does understand the
// acquire/release edges, so the TSan build is exact with no suppressions.
//
// ============================================================================================
// MEMORY ORDERING
// ============================================================================================
//
// Safety (the protect-then-validate rule, [saferecl.hp.general]/6). Reader R executes
//     hazard.store(p, release); light_fence(); q = src.load(acquire); use p iff q == p
// and the reclaimer W executes
//     src.store(other) ->hb retire(p) ->hb [pass] heavy_fence(); h = hazard.load(acquire)
// membarrier(PRIVATE_EXPEDITED) makes every thread of the process that is running execute
// a full barrier, so R's compiler barrier acts as a full fence ordered either before or
// after W's heavy fence:
//   - R's fence first: R's hazard store is visible to W's load -> W keeps p;
//   - W's fence first: the unlink is visible to R's load -> q != p, R retries and never
//     reads p.
// In the symmetric fallback both fences are seq_cst fences and the same two cases follow
// from [atomics.order] (the fences are totally ordered in S). In the TSan build there are
// no reader fences; with R's store and load seq_cst and W's seq_cst fence before its
// seq_cst loads, an old hazard value seen by W puts W's fence before R's load in S, so R's
// load sees the unlink (whatever order the user's unlink used).
//
// Happens-before for the end of an epoch. A hazard is changed (re-protect, reset,
// destroy) with a release store and scanned with acquire loads: every access the owner
// made to the previously protected object happens before the deleter that a pass runs
// after seeing the new value.
//
// Sharing a heavy fence (saferecl/detail/asymmetric_fence.hpp, "Sharing heavy fences"). The
// argument above needs a heavy fence that begins after the unlink of every object the pass
// examines and completes before the pass loads the hazards; whose fence it is does not
// matter, since membarrier fences every running thread of the process, the issuer's and
// ours alike. A pass stamps its batch after the batch was detached: a full fence (so the
// unlinks, sequenced or, through the shared list's release/acquire, happening before the
// retires, are globally visible) and then a seq_cst load of the number of fences begun, b;
// the stamp is b + 1. Any fence numbered n > b was given its number by a seq_cst fetch_add
// that follows that load in S, and its issuer entered membarrier after the fetch_add: it
// began after every unlink of the batch. The pass scans the batch only once `completed`,
// raised with a release after the call returned, is read (acquire) at or above the stamp. A
// reader then either passed the fence's barrier after its hazard store (the store is visible
// to the scan, which comes after the fence's end) or before it (its validating load comes
// after the barrier, which came after the unlink: it sees the unlink and retries), as with
// the pass's own fence. Reusing a fence that began before the stamp would lose the second
// case: the unlink could still be in the retiring thread's store buffer while the fence
// interrupts the reader (mutant MH-72). In the symmetric fallback and under TSan nothing is
// shared: there the stamp's full fence is the pass's fence (sequenced after the unlinks and
// before the scan, the reader fencing its own side), and a pass issues no other.
//
// Retired links. The private list is only touched by its thread; the shared list is
// pushed with a release CAS and taken with an acquire exchange; the pass takes its lists
// before the heavy fence, so every object it examines was unlinked before that fence.
//
// The registry. Blocks are published by a release CAS on the registry head; a reader
// that acquires the head sees the block and all blocks behind it (release sequence).
//
// ============================================================================================
// BOUND ON OUTSTANDING (RETIRED, NOT YET RECLAIMED) OBJECTS
// ============================================================================================
//
// With theta = max(4096, 2R) and L = the number of live threads whose private list,
// waiting batch or doomed list is not empty, whenever no pass is running:
//
//     outstanding  <  (7L + 1) * theta
//
// (each private list is < theta; a waiting batch is one private list at its threshold plus
// the shared list the pass took with it, < 2 theta; the doomed objects awaiting their
// deleters are what one pass scanned, a fresh and a waiting batch, < 4 theta, and no more
// than one pass's; the shared list is < theta because whoever pushes it to theta runs a
// pass over it). The doomed list shrinks by one per retire, so it is mostly the smaller
// term: the HX-02 run of the qoi tier stays far inside its bound. A waiting batch is scanned at the
// thread's next pass or handed to the shared list when the thread exits. A thread inside a
// pass additionally holds the batch it took
// (< 2 * theta) plus whatever its own deleters retire meanwhile. Objects kept because
// they are protected are at most R per pass (<= theta / 2), so at least half of each pass is
// new work and the per-object cost stays O(1). No particular object is ever guaranteed to
// be reclaimed (the standard promises none); objects still held by a thread that never
// retires again are reclaimed when it exits (by later passes).
//
// Why 4096 and not folly's 1000. A pass has one fixed cost that does not shrink with the
// list, the membarrier (one per pass before batches waited for a shared fence, which the
// figures below measured): it interrupts every CPU running a thread of the process, waits for
// each to answer, and serializes concurrent callers on a kernel mutex; everything else (the
// walk, the deleters, the allocator's frees) is per object. Profiled (perf, hp/retire, 2
// threads, floor 1000) the kernel's membarrier path held 16% of the samples, and on a
// loaded machine the wait grows with it: hp/retire at 2 threads, load average 18-27, medians
// of 5 alternating rounds, was 61 ns per object at 512, 38 at 2048, 30 at 4096 and 26 at
// 8192, next to 27 for ck (whose readers pay a full fence on every protect instead: 13x
// the reference's protect). 4096 takes most of that gain for 3,096 more objects per
// retiring thread before its first pass: the bound stays far inside what the qoi tests allow
// (HX-02: 32,768 per retiring thread plus 64 per hazard pointer, against 7 theta = 28,672
// with a waiting batch and deferred deleters; H9: outstanding does not grow with the number
// retired), and the
// cascade (step 7) is untouched: a chain still drains in the first pass that reaches it.
// Latency, counted in the thread's own retires, is 4096 instead of 1000 (at the benchmark's
// 12-30 ns per retire, 50-120 us), 8192 for an object in a batch that waits, and up to as
// many again until its deferred deleter runs. The allocator, which the pass alone did not
// amortize (a batch of frees overflowing glibc's per-thread cache, 70% of retire's samples
// at one thread; baseline/new_delete_deferred measures it on its own), is what running
// deleters one per retire addresses (above).
//
// ============================================================================================
// CONFORMANCE NOTES
// ============================================================================================
//
// - Names, signatures, noexcept and defaults exactly as [hazard.pointer.syn];
//   SAFERECL_LIB_HAZARD_POINTER == 202606L (the level of __cpp_lib_hazard_pointer that
//   includes the batch functions).
// - Mandates ("T is hazard-protectable") are static_asserts in retire, protect,
//   try_protect and reset_protection(const T*); see detail/hazard_traits.hpp for what is
//   detected. cv-qualified T is accepted as its unqualified class.
// - hazard_pointer_obj_base<T, D> is not final, T may be incomplete where the base is
//   named, D is stored (move-assigned by retire) and invoked as deleter(T*) on the
//   reclaiming thread.
// - Deleters run only inside retire() calls and in the exit hook of a thread.
// - Mutation points (SAFERECL_MUTANT("MH-xx"), detail/mutation.hpp) are compiled out of
//   the normal build; see adapters/mutants/ for what each one breaks.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include "saferecl/detail/hazard_domain.hpp"
#include "saferecl/detail/hazard_traits.hpp"
#include "saferecl/detail/mutation.hpp"


#define SAFERECL_LIB_HAZARD_POINTER 202606L

namespace saferecl {

class hazard_pointer;
hazard_pointer make_hazard_pointer();
void swap(hazard_pointer&, hazard_pointer&) noexcept;
void make_hazard_pointer_batch(std::span<hazard_pointer> batch);
void clear_hazard_pointer_batch(std::span<hazard_pointer> batch) noexcept;

// ---------------------------------------------------------------------------------------
// [saferecl.hp.base]
// ---------------------------------------------------------------------------------------

template <class T, class D = std::default_delete<T>>
class hazard_pointer_obj_base : public detail::hazard_retired_node {
 public:
  // Implementation detail used by the hazard-protectable check (found through T).
  using saferecl_hp_object_type_ = T;
  using saferecl_hp_base_type_ = hazard_pointer_obj_base;

  void retire(D d = D()) noexcept {
    constexpr bool ok = detail::hazard_retirable_impl<T, hazard_pointer_obj_base>();
    static_assert(ok, SAFERECL_HP_MANDATE_MESSAGE);
    if constexpr (ok) {
      if (!SAFERECL_MUTANT("MH-07")) saferecl_hp_deleter_ = std::move(d);  // MH-07: d dropped
      T* obj = static_cast<T*>(this);
      const void* key = static_cast<const void*>(obj);
      if (SAFERECL_MUTANT("MH-06")) key = static_cast<const void*>(this);  // base address
      detail::hazard_node_access::prepare(this, key, &saferecl_hp_reclaim_);
      if (SAFERECL_MUTANT("MH-70")) return detail::mutant_publish_then_store(saferecl_hp_deleter_, this);
      detail::hazard_retire(this);
    }
  }

 protected:
  hazard_pointer_obj_base() = default;
  hazard_pointer_obj_base(const hazard_pointer_obj_base&) = default;
  hazard_pointer_obj_base(hazard_pointer_obj_base&&) = default;
  hazard_pointer_obj_base& operator=(const hazard_pointer_obj_base&) = default;
  hazard_pointer_obj_base& operator=(hazard_pointer_obj_base&&) = default;
  ~hazard_pointer_obj_base() noexcept = default;

 private:
  // Runs on the reclaiming thread: invokes the stored deleter with the complete object.
  static void saferecl_hp_reclaim_(detail::hazard_retired_node* n) noexcept {
    auto* self = static_cast<hazard_pointer_obj_base*>(n);
    // MH-29: the node is taken for the T* through void* (as if the base came first)
    T* x = SAFERECL_MUTANT("MH-29") ? static_cast<T*>(static_cast<void*>(self)) : static_cast<T*>(self);
    if (SAFERECL_MUTANT("MH-50")) return detail::mutant_run_destroying_stored(self->saferecl_hp_deleter_, x);
    if (SAFERECL_MUTANT("MH-51")) return detail::mutant_run_never_destroyed(self->saferecl_hp_deleter_, x);
    self->saferecl_hp_deleter_(x);
  }

  [[no_unique_address]] D saferecl_hp_deleter_{};
};

// ---------------------------------------------------------------------------------------
// [saferecl.hp.holder]
// ---------------------------------------------------------------------------------------

class hazard_pointer {
 public:
#if defined(SAFERECL_MUTATION_POINTS)  // MH-20: a default-constructed holder owns a hazard
  hazard_pointer() noexcept {  // pointer (folly's old hazptr_holder); else empty
    if (SAFERECL_MUTANT("MH-20")) rec_ = detail::hazard_acquire();
  }
#else
  hazard_pointer() noexcept = default;
#endif

  hazard_pointer(hazard_pointer&& other) noexcept
      : rec_(std::exchange(other.rec_, detail::hazard_ref{})) {
    if (SAFERECL_MUTANT("MH-23") && !empty()) detail::hazard_set(rec_, nullptr);  // move ends the epoch
  }

  hazard_pointer& operator=(hazard_pointer&& other) noexcept {
    if (this != &other) [[likely]] {
      if (SAFERECL_MUTANT("MH-21") && other.empty()) return *this;  // target keeps its hazard
      if (!empty()) detail::hazard_release(rec_);
      rec_ = std::exchange(other.rec_, detail::hazard_ref{});
    } else if (SAFERECL_MUTANT("MH-16") && !empty()) {  // self-move empties
      detail::hazard_release(std::exchange(rec_, detail::hazard_ref{}));
    }
    if (SAFERECL_MUTANT("MH-22")) return static_cast<hazard_pointer&>(other);  // the source
    return *this;
  }

  SAFERECL_HP_INLINE ~hazard_pointer() noexcept { detail::hazard_destroy(rec_); }

  bool empty() const noexcept {
    if (SAFERECL_MUTANT("MH-24") && rec_ != detail::hazard_ref{})  // "empty" = protects nothing
      return detail::hazard_rec(rec_)->hazard.load(std::memory_order_relaxed) == nullptr;
    return rec_ == detail::hazard_ref{};
  }

  template <class T>
  T* protect(const std::atomic<T*>& src) noexcept {
    static_assert(detail::hazard_protectable_v<T>,
                  SAFERECL_HP_MANDATE_MESSAGE);
    if (SAFERECL_MUTANT("MH-01")) return detail::hazard_protect_unvalidated(rec_, src);
    if (SAFERECL_MUTANT("MH-25")) return detail::hazard_reload(src);  // never publishes a hazard
    // try_protect in a loop, minus the reset on failure (the next publish overwrites it).
    T* p = src.load(std::memory_order_relaxed);
    if (SAFERECL_MUTANT("MH-52") && p == nullptr) return p;  // "nothing to protect": old hazard kept
    detail::hazard_publish(rec_, detail::hazard_key(p));
    T* q = detail::hazard_reload(src);
    if (q == p) [[likely]]
      return p;
    return detail::hazard_protect_retry(rec_, q, src);
  }

  template <class T>
  bool try_protect(T*& ptr, const std::atomic<T*>& src) noexcept {
    static_assert(detail::hazard_protectable_v<T>,
                  SAFERECL_HP_MANDATE_MESSAGE);
    T* old = ptr;                                           // step 1
    if (SAFERECL_MUTANT("MH-53") && old == nullptr && (ptr = detail::hazard_reload(src)) == nullptr)
      return true;  // null to null: "nothing to protect", so the old hazard is kept
    detail::hazard_publish(rec_, detail::hazard_key(old));  // step 2: reset_protection(old)
    if (SAFERECL_MUTANT("MH-01")) return true;              // never re-validated
    ptr = detail::hazard_reload(src);                       // step 3
    if (SAFERECL_MUTANT("MH-27")) detail::hazard_set(rec_, nullptr);  // step 4 unconditional
    if (old == ptr) [[likely]]
      return true;
    if (!SAFERECL_MUTANT("MH-05")) detail::hazard_set(rec_, nullptr);  // step 4 (MH-05 skips)
    return false;
  }

  template <class T>
  void reset_protection(const T* ptr) noexcept {
    static_assert(detail::hazard_protectable_v<T>,
                  SAFERECL_HP_MANDATE_MESSAGE);
    // MH-26: reset_protection(p) only ends the current epoch; p is never associated
    detail::hazard_set(rec_, SAFERECL_MUTANT("MH-26") ? nullptr : detail::hazard_key(ptr));
  }

  void reset_protection(std::nullptr_t = nullptr) noexcept {
    detail::hazard_set(rec_, nullptr);
  }

  void swap(hazard_pointer& other) noexcept {
    std::swap(rec_, other.rec_);
  }

 private:
  friend hazard_pointer make_hazard_pointer();
  friend void make_hazard_pointer_batch(std::span<hazard_pointer> batch);
  friend void clear_hazard_pointer_batch(std::span<hazard_pointer> batch) noexcept;

  explicit hazard_pointer(detail::hazard_ref h) noexcept : rec_(h) {}

  detail::hazard_ref rec_{};  // record address + fence bit; zero when empty
};

// ---------------------------------------------------------------------------------------
// [saferecl.hp.holder.nonmem]
// ---------------------------------------------------------------------------------------

inline hazard_pointer make_hazard_pointer() { return hazard_pointer(detail::hazard_acquire()); }

inline void swap(hazard_pointer& a, hazard_pointer& b) noexcept {
  if (SAFERECL_MUTANT("MH-42")) return a.swap(a);  // forwards to the wrong object: no exchange
  a.swap(b);
}

}  // namespace saferecl
