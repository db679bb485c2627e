// saferecl/detail/hazard_domain.hpp -- internals of the reference <hazard_pointer>.
//
// Not a public header: the data structures behind saferecl::hazard_pointer and the inline
// fast paths (protect, make/destroy through the per-thread cache, retire onto the
// per-thread list). Everything that is not on a fast path lives in src/hazard_*.cpp.
// The design, its costs and its memory-ordering argument are described at the top of
// saferecl/hazard_pointer.hpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "saferecl/detail/asymmetric_fence.hpp"
#include "saferecl/detail/config.hpp"
#include "saferecl/detail/mutation.hpp"

// The fast paths are a handful of instructions; forcing them inline matters beyond the
// call: an out-of-line ~hazard_pointer (e.g. on an exception cleanup path) takes the
// holder's address, which pins it to memory and costs a reload per protect/reset.
#if defined(__GNUC__) || defined(__clang__)
#define SAFERECL_HP_INLINE inline __attribute__((always_inline))
#else
#define SAFERECL_HP_INLINE inline
#endif

namespace saferecl::detail {

// ---------------------------------------------------------------------------------------
// Tunables
// ---------------------------------------------------------------------------------------

// Records a thread keeps for itself, so make_hazard_pointer/~hazard_pointer touch no
// shared atomics while the thread owns at most this many hazard pointers at once.
inline constexpr unsigned kHazardCacheSize = 8;

// Lower bound of the reclamation threshold: a thread runs a pass when its private list
// reaches max(kHazardMinThreshold, 2 * records). Annex B's "potential minimum" is 256. Each
// pass costs one membarrier (an IPI to every CPU running a thread of the process), so the
// floor is 4096 rather than folly's 1000; why, and what it costs in memory: "Bound" in
// saferecl/hazard_pointer.hpp.
inline constexpr std::ptrdiff_t kHazardMinThreshold = 4096;

// ---------------------------------------------------------------------------------------
// Hazard records
// ---------------------------------------------------------------------------------------

struct hazard_thread_state;

// One hazard pointer slot. Records live in blocks that are published once into a
// lock-free, push-only registry and never freed, so any thread may read any record at
// any time. A record is owned (in_use == true) while a hazard_pointer holds it or while it
// sits in some thread's cache; only its owner writes `hazard`, `chain` and `home`.
struct alignas(kCacheLine) hazard_record {
  std::atomic<const void*> hazard{nullptr};  // the protected T*, or null (unassociated)
  std::atomic<bool> in_use{false};           // claimed by CAS from the shared pool
  hazard_record* chain = nullptr;            // owner-private link while being handed out
  hazard_thread_state* home = nullptr;       // written only by mutant MH-14
};

// What a hazard_pointer (and a thread's cache) holds: the record's address, with bit 0 set
// when publishing must execute a real fence (membarrier unavailable). The fence mode is a
// process-wide constant decided before the first record is handed out, so the protect fast
// path tests a bit of a register instead of loading the mode. Records are cache-line
// aligned, so the low bits of their addresses are free.
enum class hazard_ref : std::uintptr_t {};
inline constexpr std::uintptr_t kHazardFenceBit = 1;

inline hazard_record* hazard_rec(hazard_ref h) noexcept {
  return reinterpret_cast<hazard_record*>(static_cast<std::uintptr_t>(h) & ~kHazardFenceBit);
}
inline bool hazard_needs_fence(hazard_ref h) noexcept {
  return (static_cast<std::uintptr_t>(h) & kHazardFenceBit) != 0;
}

// ---------------------------------------------------------------------------------------
// Retired objects
// ---------------------------------------------------------------------------------------

// Intrusive link of a retired object: the first base of every hazard_pointer_obj_base, so
// retire() never allocates. It is written once, by retire(), and read by the pass that
// reclaims the object. Copies of an object never copy it (a copy is a different object,
// and the original may be on a list being walked by another thread).
class hazard_retired_node {
 protected:
  hazard_retired_node() noexcept = default;
  hazard_retired_node(const hazard_retired_node&) noexcept {}
  hazard_retired_node& operator=(const hazard_retired_node&) noexcept { return *this; }
  ~hazard_retired_node() = default;

 private:
  friend struct hazard_node_access;
  using reclaim_fn = void (*)(hazard_retired_node*) noexcept;

  hazard_retired_node* saferecl_hp_next_;  // next retired object on the same list
  const void* saferecl_hp_key_;            // the complete T*, compared with hazards
  reclaim_fn saferecl_hp_reclaim_;         // calls the stored deleter with the T*
};

struct hazard_node_access {
  using reclaim_fn = hazard_retired_node::reclaim_fn;
  static hazard_retired_node*& next(hazard_retired_node* n) noexcept { return n->saferecl_hp_next_; }
  static const void* key(const hazard_retired_node* n) noexcept { return n->saferecl_hp_key_; }
  static void prepare(hazard_retired_node* n, const void* key, reclaim_fn f) noexcept {
    n->saferecl_hp_key_ = key;
    n->saferecl_hp_reclaim_ = f;
  }
  static void reclaim(hazard_retired_node* n) noexcept { n->saferecl_hp_reclaim_(n); }
};

// ---------------------------------------------------------------------------------------
// Per-thread state
// ---------------------------------------------------------------------------------------

// uninit -> alive (first use; a pthread key is armed for thread exit) -> dead (after the
// exit hook handed everything back). Never back to alive: calls made after the hook (from
// later pthread-key or thread_local destructors) take the shared path.
enum class hazard_phase : unsigned char { uninit, alive, dead };

// Trivially destructible and constant-initialized: reading it is a plain TLS access (no
// init guard, no wrapper call), and it stays readable during thread teardown after its
// exit hook ran, which is what makes the `phase` flag a reliable guard.
struct hazard_thread_state {
  hazard_ref cache[kHazardCacheSize] = {};
  unsigned cached = 0;    // records in `cache`
  unsigned capacity = 0;  // kHazardCacheSize while alive, else 0 (release falls to slow path)
  hazard_retired_node* retired = nullptr;  // private retired list (LIFO)
  std::ptrdiff_t retired_count = 0;        // its length (signed: see mutant MH-11)
  std::ptrdiff_t threshold = 0;            // pass trigger, refreshed after every pass
  hazard_retired_node* pending = nullptr;  // detached by the last pass, waiting for a heavy
  std::uint64_t pending_stamp = 0;         // fence numbered pending_stamp or later
  hazard_retired_node* reclaimable = nullptr;  // found unprotected by a pass, deleters not
                                               // yet run: one runs per later retire
  hazard_phase phase = hazard_phase::uninit;
  bool in_pass = false;                    // a pass is running on this thread
  std::uintptr_t* scratch = nullptr;       // reusable hazard snapshot buffer
  std::size_t scratch_cap = 0;
};

inline constinit thread_local hazard_thread_state hazard_tls{};

// ---------------------------------------------------------------------------------------
// Out-of-line slow paths (src/hazard_*.cpp; src/hazard_internal.hpp says which file)
// ---------------------------------------------------------------------------------------

hazard_ref hazard_acquire_slow();                                // may throw bad_alloc
void hazard_release_slow(hazard_ref h) noexcept;                 // cache full or no cache; h may be empty
void hazard_retire_overflow(hazard_thread_state& t) noexcept;    // private list reached threshold
void hazard_deleter_retired(hazard_thread_state& t, std::ptrdiff_t n) noexcept;  // a deferred
                                                                // deleter retired n objects
void hazard_retire_slow(hazard_retired_node* n) noexcept;        // thread not (or no longer) alive
hazard_record* hazard_acquire_chain(std::size_t n);              // n records, all or nothing
hazard_ref hazard_ref_for(hazard_record* r) noexcept;            // tag with the fence mode

// Mutation-only entry points (kept out of line so the fast paths stay readable).
void hazard_release_to_home(hazard_ref h) noexcept;              // MH-14
void hazard_retire_locked(hazard_retired_node* n) noexcept;      // MH-09
void hazard_unprotect_everywhere(const void* p) noexcept;        // MH-28
void hazard_publish_shared(hazard_retired_node* n) noexcept;     // MH-70, NB-H39
void hazard_pass_shared_if_due() noexcept;                       // MH-70, NB-H39
bool hazard_retire_to_executor(hazard_retired_node* n) noexcept; // NB-H50

// MH-70 and NB-H39: a design with one shared retired list. `store_deleter` runs after the
// object is on the list (MH-70: a concurrent pass may already be reclaiming it) or is a
// no-op (NB-H39: retire stored the deleter first, so the object and its deleter are
// published together by the one CAS).
template <class StoreDeleter>
inline void hazard_retire_shared(hazard_retired_node* n, StoreDeleter&& store_deleter) noexcept {
  hazard_publish_shared(n);
  store_deleter();
  hazard_pass_shared_if_due();
}

// MH-70: retire has already stored d (the mutation point may not reorder its lines: the API
// patches keep them as context), so the mutant takes d back out and leaves the slot as a
// design that publishes first has it: default-constructed until d is stored after the push.
template <class D>
inline void mutant_publish_then_store(D& stored, hazard_retired_node* n) noexcept {
  D d;
  d = std::move(stored);
  stored = D();
  hazard_retire_shared(n, [&] { stored = std::move(d); });
}

// ---------------------------------------------------------------------------------------
// Inline fast paths
// ---------------------------------------------------------------------------------------

// The value a hazard slot holds for `p`: the complete-object address, cv stripped.
template <class T>
inline const void* hazard_key(T* p) noexcept {
  return static_cast<const void*>(const_cast<std::remove_cv_t<T>*>(p));
}

// Publish a hazard that is about to be validated by re-reading the source: the store must
// be ordered before the validating load (StoreLoad). Asymmetric mode: release store plus a
// light fence, paired with the heavy fence of every reclamation pass. TSan build: a seq_cst
// store paired with a seq_cst validating load and a seq_cst fence in the pass (TSan does
// not model fences, but it understands seq_cst and acquire/release operations).
inline void hazard_publish(hazard_ref h, const void* p) noexcept {
  hazard_record* r = hazard_rec(h);
  if (SAFERECL_MUTANT("NB-H51")) {  // conforming: a seq_cst exchange, paired with no heavy fence
    (void)r->hazard.exchange(p, std::memory_order_seq_cst);
    return;
  }
  if constexpr (kTsanBuild) {
    r->hazard.store(p, SAFERECL_MUTANT("MH-02") ? std::memory_order_release
                                                : std::memory_order_seq_cst);
  } else {
    r->hazard.store(p, std::memory_order_release);
    // MH-02, MH-90: no StoreLoad ordering before the re-validation (an acquire load)
    if (SAFERECL_MUTANT("MH-02") || SAFERECL_MUTANT("MH-90")) return;
    // light_fence(): a compiler barrier when membarrier is registered, else a full fence;
    // the mode travels in bit 0 of the handle (see hazard_ref).
    if (hazard_needs_fence(h)) [[unlikely]]
      full_fence();
    else
      std::atomic_signal_fence(std::memory_order_seq_cst);
  }
}

template <class T>
inline T* hazard_reload(const std::atomic<T*>& src) noexcept {
  if (SAFERECL_MUTANT("MH-41")) return src.load(std::memory_order_relaxed);  // not an acquire
  const bool sc = kTsanBuild || SAFERECL_MUTANT("NB-H51");  // NB-H51: the Dekker pattern in seq_cst
  return src.load(sc ? std::memory_order_seq_cst : std::memory_order_acquire);
}

// Associate without validation (reset_protection(p)) or end the association. A release
// store: everything the owner did with the previously protected object happens before a
// pass that reads the new value and then reclaims that object.
inline void hazard_set(hazard_ref h, const void* p) noexcept {
  if (SAFERECL_MUTANT("MH-28") && p == nullptr)  // one protection flag per object, not per holder
    hazard_unprotect_everywhere(hazard_rec(h)->hazard.load(std::memory_order_relaxed));
  hazard_rec(h)->hazard.store(p, std::memory_order_release);
}

// protect() after its first attempt failed (the source changed between the load and the
// validation): publish `p`, the value just read, and validate again until the source
// holds still. Out of line and cold, so that protect's inline path is straight-line code
// with one taken branch per call (measured: the loop laid out inline cost a second taken
// jump per protect, 0.84 ns against 0.46 ns for the same loads and stores).
template <class T>
[[gnu::noinline, gnu::cold]] T* hazard_protect_retry(hazard_ref h, T* p,
                                                     const std::atomic<T*>& src) noexcept {
  for (;;) {
    hazard_publish(h, hazard_key(p));
    T* q = hazard_reload(src);
    if (q == p) return p;
    p = q;
  }
}

// MH-01: the hazard is published but the source is never re-read.
template <class T>
inline T* hazard_protect_unvalidated(hazard_ref h, const std::atomic<T*>& src) noexcept {
  T* p = src.load(std::memory_order_relaxed);
  hazard_publish(h, hazard_key(p));
  return p;
}

SAFERECL_HP_INLINE hazard_ref hazard_acquire() {
  if (SAFERECL_MUTANT("NB-H60")) mutant_busy_work();  // conforming: slow, never stuck
  hazard_thread_state& t = hazard_tls;
  if (t.cached != 0) [[likely]]
    return t.cache[--t.cached];
  return hazard_acquire_slow();
}

// End the epoch of an owned record (a release store), unless the slot is already null: then
// the store that nulled it was already a release by this owner. MH-04: recycled with its
// hazard.
SAFERECL_HP_INLINE void hazard_end_epoch(hazard_ref h) noexcept {
  hazard_record* r = hazard_rec(h);
  if (r->hazard.load(std::memory_order_relaxed) != nullptr && !SAFERECL_MUTANT("MH-04"))
    hazard_set(h, nullptr);
}

SAFERECL_HP_INLINE void hazard_release(hazard_ref h) noexcept {
  hazard_end_epoch(h);
  if (SAFERECL_MUTANT("MH-14")) return hazard_release_to_home(h);
  hazard_thread_state& t = hazard_tls;
  if (t.cached < t.capacity) [[likely]] {
    t.cache[t.cached++] = h;
    return;
  }
  hazard_release_slow(h);
}

// ~hazard_pointer: hazard_release(h) if h owns a record. Laid out so that every inline path
// ends by storing the cache count from a register (an empty holder stores it unchanged), and
// the one other path is a call: in a loop of make + destroy the compiler then carries the
// count from one iteration to the next in a register. With a path that skipped the store
// (`if (!empty()) hazard_release(h)`), clang reloaded the count at the top of every
// iteration: a store-to-load forwarding on the loop's dependency chain, whose latency is what
// made hp/make_destroy swing between 1.17x and 1.83x the thread_local pop + push from run to
// run (the README's Benchmarks section).
SAFERECL_HP_INLINE void hazard_destroy(hazard_ref h) noexcept {
  // MH-40: released without the empty() test, so an empty holder writes through no record
  const bool owned = h != hazard_ref{} || SAFERECL_MUTANT("MH-40");
  if (owned) {
    hazard_end_epoch(h);
    if (SAFERECL_MUTANT("MH-14")) return hazard_release_to_home(h);
  }
  hazard_thread_state& t = hazard_tls;
  const unsigned n = t.cached;
  if (n < t.capacity) [[likely]] {
    if (owned) t.cache[n] = h;
    t.cached = n + (owned ? 1 : 0);
    return;
  }
  hazard_release_slow(h);  // an empty holder included: it has nothing to give back
}

// Runs the deleter of one object that a pass found unprotected (see "Deleters run one per
// retire" in saferecl/hazard_pointer.hpp). It runs as inside a pass: what it retires is only
// queued, and no deleter runs within it. A deleter that retired starts a cascade.
inline void hazard_reclaim_one(hazard_thread_state& t) noexcept {
  hazard_retired_node* n = std::exchange(t.reclaimable, nullptr);
  const std::ptrdiff_t queued = t.retired_count;
  t.in_pass = true;
  hazard_node_access::reclaim(std::exchange(n, hazard_node_access::next(n)));
  t.in_pass = false;
  t.reclaimable = n;
  __builtin_prefetch(n);  // the next retire's: last touched by the pass, long out of L1
  if (t.retired_count != queued) [[unlikely]]
    hazard_deleter_retired(t, t.retired_count - queued);
}

inline void hazard_retire(hazard_retired_node* n) noexcept {
  if (SAFERECL_MUTANT("NB-H60")) mutant_busy_work();  // conforming: slow, never stuck
  if (SAFERECL_MUTANT("MH-09")) return hazard_retire_locked(n);
  if (SAFERECL_MUTANT("NB-H39")) return hazard_retire_shared(n, [] {});  // conforming
  if (SAFERECL_MUTANT("NB-H50") && hazard_retire_to_executor(n)) return;  // conforming
  hazard_thread_state& t = hazard_tls;
  if (t.phase == hazard_phase::alive) [[likely]] {
    hazard_node_access::next(n) = t.retired;
    t.retired = n;
    // NB-H1, NB-H51 (conforming variants): a reclamation pass on every retire.
    if ((++t.retired_count >= t.threshold || SAFERECL_MUTANT("NB-H1") || SAFERECL_MUTANT("NB-H51")) &&
        !SAFERECL_MUTANT("MH-12")) [[unlikely]]
      hazard_retire_overflow(t);
    if (t.reclaimable != nullptr) hazard_reclaim_one(t);
    return;
  }
  hazard_retire_slow(n);
}

}  // namespace saferecl::detail
