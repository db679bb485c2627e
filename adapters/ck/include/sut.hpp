// sut.hpp for the `ck` adapter: <hazard_pointer> over ck_hp and <rcu> over ck_epoch, from
// Concurrency Kit (libck).
//
// How ck's concepts map onto the standard's:
//
//   standard                          Concurrency Kit
//   --------------------------------  ----------------------------------------------------
//   (implicit, per process)           one ck_hp_t (ck_hp_init: K slots per record, threshold,
//                                     a destructor that runs the retired object's deleter)
//                                     and one ck_epoch_t (ck_epoch_init), on first use
//   (implicit, per thread)            a ck_hp_record_t and a ck_epoch_record_t, taken on the
//                                     thread's first use (adopted from the adapter's pool of
//                                     records whose thread exited, or ck_*_recycle, or
//                                     allocated and ck_*_register); at thread exit returned
//                                     with ck_*_unregister when nothing is pending on them,
//                                     kept in the pool otherwise (unregister would drop the
//                                     pending list: ck_hp_unregister and ck_epoch_unregister
//                                     both re-initialize it)
//   hazard_pointer                    one of the K slots of the creating thread's record
//   make_hazard_pointer()             a free slot of this thread's record; none left:
//                                     std::bad_alloc
//   protect / try_protect             ck_hp_set_fence(record, slot, p), then re-validate src
//   reset_protection(p) / ()          ck_hp_set_fence(record, slot, p) / a release, then
//                                     ck_hp_set(record, slot, NULL)
//   hazard_pointer_obj_base::retire   ck_hp_free(record, &hazard, object, object): the
//                                     ck_hp_hazard_t is embedded in the base; ck_hp_reclaim
//                                     scans when the record's pending count reaches the
//                                     threshold, on the retiring thread
//   rcu_domain::lock / unlock         ck_epoch_begin / ck_epoch_end on the thread's record;
//                                     the outermost lock passes the thread's
//                                     ck_epoch_section_t (forward progress for synchronize
//                                     under overlapping readers), nested ones pass NULL and
//                                     only count (record->active)
//   rcu_obj_base::retire / rcu_retire ck_epoch_call_strict on the thread's record (an
//                                     embedded ck_epoch_entry_t / a heap node {entry, p, d}),
//                                     then ck_epoch_poll when many are pending and the thread
//                                     is outside every section
//   rcu_synchronize                   ck_epoch_synchronize
//   rcu_barrier                       detach the pending callbacks of every record
//                                     (ck_stack_batch_pop_upmc, which call_strict permits),
//                                     ck_epoch_synchronize, then run them: ck_epoch_barrier
//                                     alone runs only the caller's own record's callbacks
//
// What differs from the standard (failing tests, explained in adapters/ck/README.md):
//   * K slots per record, fixed at ck_hp_init (SAFERECL_CK_HAZARD_POINTERS, default 64):
//     make_hazard_pointer() beyond K live hazard pointers of one thread throws bad_alloc.
//   * A hazard pointer belongs to its creating thread's record. Using or destroying it on
//     another thread stays memory-safe here (a slot is written only through its own
//     hazard_pointer; its free bit is atomic) and, when the creating thread exits, the
//     record goes to the pool, not back to ck, so the protection lasts.
//   * ck's deferred callbacks run only when their record polls or barriers; the adapter's
//     rcu_barrier reaches every record (see above), which is the one place the standard
//     requires them to have run.
//
// SUT_NATIVE_API is 0: these signatures are this adapter's.
//
// ThreadSanitizer. ck's atomics (ck_pr_*) are inline assembly on x86_64 and libck.so is not
// instrumented, so TSan sees none of ck's synchronization. The adapter states the edges ck
// guarantees with __tsan_release/__tsan_acquire:
//   * HP: every end of a protection of p releases p, retire releases p; ck's destructor
//     callback acquires p before the deleter runs;
//   * RCU: unlock releases readers_sync; rcu_synchronize acquires it after ck returns; a
//     callback acquires its node and readers_sync before it runs its deleter and releases
//     callbacks_sync after; rcu_barrier acquires callbacks_sync. retire releases the node
//     before ck_epoch_call_strict links it (the barrier walks the links).
// The readers edge over-approximates (it also orders regions that began after the grace
// period started): it can hide a real race but never reports a false one.
#pragma once

#include "ck_cxx.hpp"  // ck's headers, made valid C++

#include <adapter_kit.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#define SUT_NAME "ck"
#define SUT_HAS_HAZARD_POINTER 1
#define SUT_HAS_RCU 1
#define SUT_HAS_HP_BATCH 0
#define SUT_NATIVE_API 0

#ifndef SAFERECL_CK_HAZARD_POINTERS
#define SAFERECL_CK_HAZARD_POINTERS 64  // slots per ck_hp record (the degree of ck_hp_init)
#endif

namespace sut::ck_detail {

using saferecl_kit::tsan_acquire;
using saferecl_kit::tsan_release;

inline constexpr unsigned kSlots = SAFERECL_CK_HAZARD_POINTERS;
inline constexpr std::uint64_t kAllSlots =
    kSlots == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (kSlots % 64)) - 1;
static_assert(kSlots >= 1 && kSlots <= 64, "the adapter keeps a record's free slots in 64 bits");
// ck_hp_free scans when a record's pending count reaches this (Annex B's 256).
inline constexpr unsigned kHpThreshold = 256;
// ck_epoch_poll is tried when this many callbacks are pending on a record.
inline constexpr unsigned kEpochPollThreshold = 1024;

// ---------------------------------------------------------------- hazard pointers

// A ck_hp record with its slot array and the adapter's bookkeeping of free slots.
struct hp_record {
  ck_hp_record_t ck;
  void* slots[kSlots];
  std::atomic<std::uint64_t> free_slots{kAllSlots};
  bool all_free() const noexcept { return free_slots.load(std::memory_order_acquire) == kAllSlots; }
};

inline hp_record* hp_record_of(ck_hp_record_t* r) noexcept {
  return reinterpret_cast<hp_record*>(reinterpret_cast<char*>(r) - offsetof(hp_record, ck));
}

void hp_destroy(void* data) noexcept;

inline ck_hp_t& hp_global() noexcept {
  static ck_hp_t global = [] {
    ck_hp_t g;
    ck_hp_init(&g, kSlots, kHpThreshold, &hp_destroy);
    return g;
  }();
  return global;
}

// ---------------------------------------------------------------- epochs

inline ck_epoch_t& epoch_global() noexcept {
  static ck_epoch_t global = [] {
    ck_epoch_t g;
    ck_epoch_init(&g);
    return g;
  }();
  return global;
}

// Hides this thread's memory accesses from TSan for the scope (AnnotateIgnoreWritesBegin of
// the TSan runtime, gcc's and clang's alike, ignores reads and writes).
#if defined(SAFERECL_KIT_TSAN)
extern "C" void AnnotateIgnoreWritesBegin(const char* file, int line);
extern "C" void AnnotateIgnoreWritesEnd(const char* file, int line);
struct tsan_ignore_writes {
  tsan_ignore_writes() noexcept { AnnotateIgnoreWritesBegin(__FILE__, __LINE__); }
  ~tsan_ignore_writes() { AnnotateIgnoreWritesEnd(__FILE__, __LINE__); }
  tsan_ignore_writes(const tsan_ignore_writes&) = delete;
  tsan_ignore_writes& operator=(const tsan_ignore_writes&) = delete;
};
#else
struct tsan_ignore_writes {
  tsan_ignore_writes() noexcept {}
};
#endif

// Synchronization addresses of the RCU annotations (see the top of the file).
inline char readers_sync;
inline char callbacks_sync;

// Records whose thread exited with work still pending on them (or, for hazard pointers,
// slots still owned by a hazard_pointer elsewhere): adopted by the next new thread (a
// hazard-pointer record only once none of its slots is owned any more).
struct pool {
  std::mutex mutex;
  std::vector<hp_record*> hp;
  std::vector<ck_epoch_record_t*> epoch;
  // rcu_barrier's detaching and a thread's ck_epoch_poll both take a record's pending
  // stacks apart: this serializes them (call_strict's pushes need no lock).
  std::mutex dispatch;
};
// Built in static storage, never destroyed (threads may exit during static destruction).
// Building it allocates nothing, so a thread's first make_hazard_pointer, retire or barrier
// cannot fail here.
inline pool& the_pool() noexcept {
  alignas(pool) static unsigned char storage[sizeof(pool)];
  static pool* p = ::new (storage) pool;
  return *p;
}

struct thread_records {
  hp_record* hp = nullptr;
  ck_epoch_record_t* epoch = nullptr;
  ck_epoch_section_t section{};
};
constinit inline thread_local thread_records mine{};

void release_at_exit(void*) noexcept;

inline void arm_exit() noexcept { saferecl_kit::thread_exit<&release_at_exit>::arm(); }

[[gnu::noinline, gnu::cold]] inline hp_record* hp_attach() {
  ck_hp_t& global = hp_global();
  hp_record* r = nullptr;
  {
    // Only a record none of whose slots is still owned by a hazard_pointer elsewhere: this
    // thread then has all K slots, as a thread with a fresh record would.
    std::lock_guard lock(the_pool().mutex);
    std::vector<hp_record*>& pooled = the_pool().hp;
    for (auto it = pooled.begin(); it != pooled.end(); ++it) {
      if ((*it)->all_free()) {
        r = *it;
        pooled.erase(it);
        break;
      }
    }
  }
  if (r == nullptr) {
    if (ck_hp_record_t* recycled = ck_hp_recycle(&global)) {
      r = hp_record_of(recycled);
      tsan_acquire(r);  // it was unregistered by a thread that exited
    }
  }
  if (r == nullptr) {
    r = new hp_record;  // never freed: ck records cannot be unlinked
    ck_hp_register(&global, &r->ck, r->slots);
  }
  mine.hp = r;
  arm_exit();
  return r;
}

inline hp_record* hp_mine() {
  if (mine.hp == nullptr) [[unlikely]]
    return hp_attach();
  return mine.hp;
}

[[gnu::noinline, gnu::cold]] inline ck_epoch_record_t* epoch_attach() {
  ck_epoch_t& global = epoch_global();
  ck_epoch_record_t* r = nullptr;
  {
    std::lock_guard lock(the_pool().mutex);
    if (!the_pool().epoch.empty()) {
      r = the_pool().epoch.back();
      the_pool().epoch.pop_back();
    }
  }
  if (r == nullptr) {
    r = ck_epoch_recycle(&global, nullptr);
    if (r != nullptr) tsan_acquire(r);
  }
  if (r == nullptr) {
    r = new ck_epoch_record_t;  // never freed: ck records cannot be unlinked
    ck_epoch_register(&global, r, nullptr);
  }
  mine.epoch = r;
  arm_exit();
  return r;
}

inline ck_epoch_record_t* epoch_mine() noexcept {
  if (mine.epoch == nullptr) [[unlikely]]
    return epoch_attach();
  return mine.epoch;
}

inline void release_at_exit(void*) noexcept {
  if (hp_record* r = std::exchange(mine.hp, nullptr)) {
    ck_hp_reclaim(&r->ck);
    if (r->ck.n_pending == 0 && r->all_free()) {
      tsan_release(r);
      ck_hp_unregister(&r->ck);
    } else {
      std::lock_guard lock(the_pool().mutex);
      the_pool().hp.push_back(r);
    }
  }
  if (ck_epoch_record_t* r = std::exchange(mine.epoch, nullptr)) {
    if (ck_pr_load_uint(&r->n_pending) == 0) {
      tsan_release(r);
      ck_epoch_unregister(r);
    } else {
      std::lock_guard lock(the_pool().mutex);
      the_pool().epoch.push_back(r);
    }
  }
}

// The error make_hazard_pointer reports when the thread's record has no free slot.
struct hazard_pointers_exhausted : std::bad_alloc {
  const char* what() const noexcept override {
    return "ck: no free slot in this thread's ck_hp record (degree fixed at ck_hp_init)";
  }
};

// The part of a retired object ck sees.
struct hp_node {
  ck_hp_hazard_t ck_hazard;
  void (*ck_reclaim)(hp_node*) noexcept;
};

inline void hp_destroy(void* data) noexcept {
  auto* node = static_cast<hp_node*>(data);
  tsan_acquire(node);
  node->ck_reclaim(node);
}

template <class U, class Reclaim>
void hp_reclaim(hp_node* node) noexcept {
  U* object = static_cast<U*>(node);
  tsan_acquire(object);
  Reclaim::run(object);
}

struct hazard_pointers {
  // One of the K slots of a record; a null record is an empty hazard_pointer.
  struct slot {
    hp_record* record = nullptr;
    unsigned index = 0;
  };

  static slot make() {
    hp_record* r = hp_mine();
    std::uint64_t free = r->free_slots.load(std::memory_order_relaxed);
    // Only this thread takes slots of its record; others (a moved hazard_pointer) give back.
    while (free != 0) {
      std::uint64_t bit = free & -free;
      if (r->free_slots.compare_exchange_weak(free, free & ~bit, std::memory_order_acquire))
        return slot{r, static_cast<unsigned>(__builtin_ctzll(bit))};
    }
    throw hazard_pointers_exhausted();
  }

  static bool empty(const slot& s) noexcept { return s.record == nullptr; }

  template <class U>
  static void publish(slot& s, U* p) noexcept {
    end_protection(s);
    ck_hp_set_fence(&s.record->ck, s.index, p);
  }

  static void clear(slot& s) noexcept {
    end_protection(s);
    ck_pr_fence_release();  // what was read under the protection happens before its end
    ck_hp_set(&s.record->ck, s.index, nullptr);
  }

  static void release(slot& s) noexcept {
    clear(s);
    s.record->free_slots.fetch_or(std::uint64_t{1} << s.index, std::memory_order_release);
    s.record = nullptr;
  }

  template <class U, class Reclaim>
  using node = hp_node;

  // ck_hp_free: the ck_hp_hazard_t is embedded in the object; ck_hp_reclaim scans when the
  // record's pending count reaches the threshold, on the retiring thread.
  template <class Reclaim, class U>
  static void defer(U* object) noexcept {
    hp_record* r = hp_mine();
    hp_node* node = object;
    node->ck_reclaim = &hp_reclaim<U, Reclaim>;
    tsan_release(node);
    tsan_release(object);
    ck_hp_free(&r->ck, &node->ck_hazard, node, object);
  }

 private:
  // TSan: whatever this slot protected may now be reclaimed; everything done with it through
  // this hazard pointer happens before that.
  static void end_protection(const slot& s) noexcept {
#if defined(SAFERECL_KIT_TSAN)
    if (void* p = ck_pr_load_ptr(&s.record->slots[s.index])) tsan_release(p);
#else
    (void)s;
#endif
  }
};

// ---------------------------------------------------------------- RCU callbacks

struct epoch_node {
  ck_epoch_entry_t ck_entry;
};

// True while this thread runs deleters for a barrier: a deleter that retires must not poll
// (the dispatch mutex is this thread's already).
constinit inline thread_local bool dispatching = false;

template <class U, class Reclaim>
void run_callback(ck_epoch_entry_t* e) noexcept {
  tsan_acquire(e);
  tsan_acquire(&readers_sync);
  Reclaim::run(static_cast<U*>(reinterpret_cast<epoch_node*>(e)));  // the entry is first
  tsan_release(&callbacks_sync);
}

// ck_stack_batch_pop_upmc (left out in ck_cxx.hpp): every entry, at once.
inline ck_stack_entry_t* ck_batch_pop(ck_stack_t* stack) noexcept {
  auto* head = static_cast<ck_stack_entry_t*>(ck_pr_fas_ptr(&stack->head, nullptr));
  ck_pr_fence_load();
  return head;
}

struct rcu {
  static void enter() noexcept {
    ck_epoch_record_t* r = epoch_mine();
    ck_epoch_begin(r, r->active == 0 ? &mine.section : nullptr);
  }
  static void leave() noexcept {
    ck_epoch_record_t* r = mine.epoch;
    tsan_release(&readers_sync);
    ck_epoch_end(r, r->active == 1 ? &mine.section : nullptr);
  }

  static void synchronize() noexcept {
    ck_epoch_synchronize(epoch_mine());
    tsan_acquire(&readers_sync);
  }

  // The dispatch mutex is held throughout, so a barrier also waits for deleters that another
  // barrier (or a poll) detached before it and is still running. ck's links (records, pending
  // entries) are read and written with ck_pr, as ck itself does: they were written inside
  // libck.so or by ck_pr, where TSan sees nothing.
  static void barrier() noexcept {
    ck_epoch_record_t* self = epoch_mine();
    std::lock_guard lock(the_pool().dispatch);
    dispatching = true;
    // Detach first: what is detached was scheduled before the grace period below began.
    ck_stack_entry_t* detached = detach_every_record();
    ck_epoch_synchronize(self);
    tsan_acquire(&readers_sync);
    while (detached != nullptr) {
      auto* next = static_cast<ck_stack_entry_t*>(ck_pr_load_ptr(&detached->next));
      auto* e = reinterpret_cast<ck_epoch_entry_t*>(reinterpret_cast<char*>(detached) -
                                                    offsetof(ck_epoch_entry_t, stack_entry));
      auto* run = reinterpret_cast<ck_epoch_cb_t*>(ck_pr_load_ptr(&e->function));
      run(e);
      detached = next;
    }
    dispatching = false;
    tsan_acquire(&callbacks_sync);
  }

  template <class U, class Reclaim>
  using node = epoch_node;

  // ck_epoch_call_strict on the thread's record, then a poll now and then.
  template <class Reclaim, class U>
  static void defer(U* object) noexcept {
    ck_epoch_record_t* r = epoch_mine();
    epoch_node* node = object;
    // ck publishes the entry in ck_stack_push_upmc: plain writes of entry->function and
    // entry->next, ck_pr_fence_store, then the CAS of the stack head (which the barrier's
    // fas + ck_pr_fence_load acquires). TSan sees the two writes but neither the fence nor
    // the CAS, and an annotation cannot go between them: the release stands for ck's fence,
    // and those two writes, which the fence orders, are hidden from TSan.
    tsan_release(node);
    {
      tsan_ignore_writes scope;
      ck_epoch_call_strict(r, &node->ck_entry, &run_callback<U, Reclaim>);
    }
    // A careful ck user bounds the deferred list: poll (non-blocking) now and then, outside
    // every section (within one, the thread's own section would hold the epoch anyway).
    if (ck_pr_load_uint(&r->n_pending) >= kEpochPollThreshold && r->active == 0 && !dispatching) {
      std::unique_lock lock(the_pool().dispatch, std::try_to_lock);
      if (lock.owns_lock()) ck_epoch_poll(r);
    }
  }

  // A thread's first retire attaches its ck record (which allocates) before the node is made,
  // so a bad_alloc from either leaves nothing scheduled ([saferecl.rcu.domain.func]/9).
  static void prepare_retire() {
    if (mine.epoch == nullptr) epoch_attach();
  }

 private:
  // Every record's pending callbacks (ck_stack_batch_pop_upmc, which call_strict permits),
  // linked into one list.
  static ck_stack_entry_t* detach_every_record() noexcept {
    ck_stack_entry_t* detached = nullptr;
    for (auto* cursor = static_cast<ck_stack_entry_t*>(ck_pr_load_ptr(&epoch_global().records.head));
         cursor != nullptr; cursor = static_cast<ck_stack_entry_t*>(ck_pr_load_ptr(&cursor->next))) {
      auto* r = reinterpret_cast<ck_epoch_record_t*>(reinterpret_cast<char*>(cursor) -
                                                     offsetof(ck_epoch_record_t, record_next));
      for (unsigned i = 0; i < CK_EPOCH_LENGTH; ++i) {
        ck_stack_entry_t* head = ck_batch_pop(&r->pending[i]);
        unsigned n = 0;
        while (head != nullptr) {
          auto* next = static_cast<ck_stack_entry_t*>(ck_pr_load_ptr(&head->next));
          ck_pr_store_ptr(&head->next, detached);
          detached = head;
          head = next;
          ++n;
        }
        if (n != 0) ck_pr_sub_uint(&r->n_pending, n);
      }
    }
    return detached;
  }
};

}  // namespace sut::ck_detail

namespace sut::library {
using hazard_pointers = ck_detail::hazard_pointers;
using rcu = ck_detail::rcu;
}

#include <adapter_kit/standard_names.hpp>
