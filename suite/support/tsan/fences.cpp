// A model of atomic_thread_fence for ThreadSanitizer, which has none: TSan derives
// happens-before from acquire and release *operations* only, so a design that synchronizes
// through fences is reported as racing even when it is correct. [atomics.fences] gives a fence
// its effect through the atomic operations around it:
//   - a release fence F, then an atomic store X to M (any order): an acquire that reads X (or
//     a read-modify-write of X's release sequence) synchronizes with F, so it receives what the
//     thread did up to F, not what it did between F and X;
//   - an atomic load Y (any order), then an acquire fence B: a release that Y read from
//     synchronizes with B, not with Y.
//
// What TSan gives (LLVM 14's runtime, and since): a location M has a sync object with a vector
// clock; a release store *replaces* it with the thread's clock ("ReleaseStore"), a release
// read-modify-write joins into it, a relaxed store or read-modify-write leaves it alone, an
// acquire load joins it into the thread's clock; __tsan_release(p) joins the thread's clock
// into p's object, __tsan_acquire(p) joins p's object into the thread. A fence does nothing.
//
// The model, every part of it an edge C++ has or a wider one:
//   - Fence slots. Each thread that runs a release-or-stronger fence owns a row of slots
//     (addresses no program touches). The fence joins the thread's clock into its current
//     slot; the slot stays current until a store takes it as its tag, and the next fence then
//     moves to the next slot of the row (a ring; generation numbers tell a slot's reuse).
//   - Tags. A relaxed store, or the write of a non-release read-modify-write, by a thread that
//     has fenced tags its location with the thread's current slot (a side table, address ->
//     tag): the value carries the thread's clock as of its last release fence, and nothing
//     after it. Another plain store replaces the tag (untagged, if it is not after a fence), a
//     read-modify-write keeps it (the release sequence goes on).
//   - Acquire. An acquire load (or read-modify-write) acquires the location's object, as TSan
//     does, and the slot of the tag its value carried. A non-acquire load remembers both
//     (location and tag) until the thread's next acquire-or-stronger fence, which acquires
//     them: the fence receives what the loads read, and nothing before it.
//   - Release stores join. A release store (non-RMW) is performed as a release exchange, which
//     TSan joins into the location's object instead of replacing it: a load that read an
//     earlier value and waits for its acquire fence must still find that value's release
//     there. So a location's object only grows, and acquiring it at the fence is at least what
//     the load read. The exchange joins and writes in one step, the write inside the release;
//     a join (__tsan_release) followed by a relaxed write would leave the write one epoch past
//     the release, and invent a race with an acquirer that reuses the location's memory (a
//     completion flag on a stack: seen in the battery, litmus case
//     completion_flag_reused_after_its_acquire).
//
// Why every race TSan reports is real: each acquire above joins a clock that holds at least
// the clock C++ gives the edge. A slot joins only clocks of its owners, which only grow, so a
// slot acquired after a reuse holds a later clock of the same thread (or, once more than
// kRows threads have fenced and rows are shared, of both): more, never less. A location's
// object never shrinks (release stores join). A value and its tag go together: a store that
// tags writes both under its table entry's lock (made before the write), and a load or
// read-modify-write of a location with an entry reads both under it; a load that found no
// entry looks again after it read, and reads again under the lock if one appeared. A thread's
// own tags are not acquired (its clock holds them); the loads it still holds when TSan
// finishes it are dropped, as nothing of the thread is seen after (unmap_table_at_exit).
// TSan sees none of the model's own state: its functions are not instrumented
// (disable_sanitizer_instrumentation: plain no_sanitize("thread") still instruments atomics),
// so the model adds no edge of its making.
//
// What is wider than C++ (so may hide a race, never invent one):
//   - a release store also carries earlier releases to its location (the join above);
//   - an untagged store that raced with the making of its location's entry leaves the older
//     tag beside its value;
// and, each said once per process on stderr when it happens, as
// "[saferecl] TSan fence model widened: <what>" (the reports list a passing test whose process
// said one: its pass rests on the wider edge):
//   - a stale tag (its slot reused since) carries the owner's later clock;
//   - a full side table: the store is performed as a release, at the store (the old model);
//   - a non-release read-modify-write after a fence, on a location another thread's slot
//     tags: performed as a release at the operation (one tag per location);
//   - more distinct loads (location and tag) before an acquire fence than the model keeps
//     (3/4 of 1 << kPendingMaxBits, some three million, or what mmap gives): they are
//     acquired at once, before their fence. Below that the set grows (inline, then mapped)
//     rather than acquire early, which at 768 loads hid races in threads that never fence;
//   - more than kRows fencing threads: rows shared (a tag carries both owners' clocks);
//   - a read-modify-write that ran untracked (no store had been tagged yet) while the
//     process's first tagged store happened: it acquires every slot, not knowing which tag
//     its value carried.
// Nothing in the model loses an edge, so no race it reports needs voiding
// (reports/tsan_evidence.py judges every race of a fencing process as evidence).
//
// Every TSan-instrumented atomic operation and fence is a call into TSan's interface
// (__tsan_atomicN_op, __tsan_atomic_thread_fence). The battery's TSan executables are linked
// with --wrap for each of them (suite/CMakeLists.txt), so the call lands here first.
#include <limits.h>
#include <pthread.h>
#include <sanitizer/tsan_interface.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#define SAFERECL_UNINSTRUMENTED __attribute__((disable_sanitizer_instrumentation))

namespace {

// The runtime's encoding of std::memory_order.
enum order : int { relaxed, consume, acquire, release, acq_rel, seq_cst };

constexpr bool acquires(int o) { return o == consume || o == acquire || o == acq_rel || o == seq_cst; }
constexpr bool releases(int o) { return o == release || o == acq_rel || o == seq_cst; }
constexpr int with_release(int o) { return o == relaxed ? release : o == acquire || o == consume ? acq_rel : o; }

constexpr unsigned kRows = 4096;         // fencing threads with a row of their own
constexpr unsigned kSlotsPerRow = 64;
constexpr unsigned kTableBits = 18;      // side table entries (16 bytes each)
constexpr unsigned kMaxProbes = 64;
constexpr unsigned kPendingBits = 10;     // the set of loads before an acquire fence: log2 of its inline cells
constexpr unsigned kPendingMaxBits = 22;  // and of the most cells it grows to
constexpr unsigned pending_limit(unsigned bits) { return (1u << bits) / 4 * 3; }  // cells used at most

// A tag: the slot's row and index and the generation it had when the store took it, << 1
// (bit 0 of a table word is its lock). 0: untagged.
using tag_t = std::uint64_t;
constexpr tag_t make_tag(unsigned row, unsigned slot, std::uint64_t generation) {
  return ((generation << 18 | row << 6 | slot) << 1) | 0;
}
constexpr unsigned tag_row(tag_t t) { return (t >> 7) & (kRows - 1); }
constexpr unsigned tag_slot(tag_t t) { return (t >> 1) & (kSlotsPerRow - 1); }
constexpr std::uint64_t tag_generation(tag_t t) { return t >> 19; }
static_assert(kRows == 1 << 12 && kSlotsPerRow == 1 << 6);

// The slots: only their addresses matter (TSan's sync objects), 8 bytes apart (its granule).
alignas(64) std::uint64_t g_slots[kRows][kSlotsPerRow];
std::uint64_t g_generation[kRows][kSlotsPerRow];  // a slot's current generation (atomic accesses)
unsigned g_rows_taken;

struct entry {
  const volatile void* location;  // 0: free
  tag_t word;                     // tag | lock bit
};
entry g_table[1u << kTableBits];
bool g_tagged_any;  // some store was ever tagged: until then a load needs no look-up

enum widening : unsigned {
  stale_tag, table_full, rmw_released, pending_acquired_early, rows_shared, first_tag_raced, kWidenings
};
constexpr const char* kWideningText[kWidenings] = {
    "a tag whose fence slot was reused since carried its owner's later clock",
    "the side table was full: a relaxed store after a release fence was performed as a release",
    "a non-release read-modify-write after a fence, on a location another fence tags, was performed as a release",
    "more distinct loads before an acquire fence than the model keeps: they were acquired at once, before their fence",
    "more threads fenced than the model has rows: rows are shared",
    "a read-modify-write raced with the process's first tagged store: it acquired every fence slot",
};
bool g_said[kWidenings];

SAFERECL_UNINSTRUMENTED void say(widening w) {
  if (__atomic_load_n(&g_said[w], __ATOMIC_RELAXED) || __atomic_exchange_n(&g_said[w], true, __ATOMIC_RELAXED)) return;
  char line[200] = "[saferecl] TSan fence model widened: ";
  std::strncat(line, kWideningText[w], sizeof line - std::strlen(line) - 2);
  std::strcat(line, "\n");
  (void)!::write(STDERR_FILENO, line, std::strlen(line));
}

// A remembered load: its location and its value's tag (0: none, or the thread's own).
struct pending_load {
  const volatile void* location;
  tag_t tag;
};

struct thread_model {
  int row = -1;                // -1: no release fence yet
  unsigned slot = 0;           // current slot of the row
  bool slot_tagged = false;    // a store has taken the current slot
  std::uint64_t generation = 0;
  // The loads since the last acquire fence, as a set: an open-addressed table of
  // 1 << pending_bits cells (at most 3/4 used) and the list of its used cells, to acquire and
  // clear them. The first table is inline; a fuller set moves to a mapped one twice as large
  // (grow_pending), which the thread keeps until it ends.
  unsigned pending_bits = kPendingBits;
  unsigned pending_count = 0;
  pending_load* mapped = nullptr;  // the mapped table (its cells, then its list); null: inline
  bool exited = false;             // the thread's mapped table is gone with its last key destructors
  unsigned inline_used[pending_limit(kPendingBits)];
  pending_load inline_cells[1u << kPendingBits];
};
thread_local constinit thread_model t_model{};

SAFERECL_UNINSTRUMENTED pending_load* pending_cells(thread_model& m) { return m.mapped ? m.mapped : m.inline_cells; }
SAFERECL_UNINSTRUMENTED unsigned* pending_used(thread_model& m) {
  return m.mapped ? reinterpret_cast<unsigned*>(m.mapped + (std::size_t{1} << m.pending_bits)) : m.inline_used;
}
SAFERECL_UNINSTRUMENTED unsigned pending_cell(const volatile void* location, tag_t t, unsigned bits) {
  return static_cast<unsigned>(((reinterpret_cast<std::uintptr_t>(location) >> 3) ^ t) * 0x9E3779B97F4A7C15ull >>
                               (64 - bits));
}
constexpr std::size_t mapping_bytes(unsigned bits) {
  return ((sizeof(pending_load) << bits) + sizeof(unsigned) * pending_limit(bits) + 4095) & ~std::size_t{4095};
}

// The mapped tables: raw system calls, so TSan keeps no state for them (its mmap interceptor
// would imitate a write), and not the heap (tests measure it: H36).
SAFERECL_UNINSTRUMENTED pending_load* map_table(unsigned bits) {
  const long mapping = ::syscall(SYS_mmap, nullptr, mapping_bytes(bits), PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return mapping == -1 ? nullptr : reinterpret_cast<pending_load*>(mapping);
}
SAFERECL_UNINSTRUMENTED void unmap_table(pending_load* cells, unsigned bits) {
  ::syscall(SYS_munmap, cells, mapping_bytes(bits));
}

// A thread's mapped table goes in the last pass of its thread-specific destructors: TSan
// finishes the thread in that pass too (its key is older than ours, so its destructor runs
// first, and it re-arms itself until then as this one does), so the loads still pending can
// order nothing TSan sees. The main thread's table goes with the process. A forked child
// keeps its one thread's table; the other threads' are unused copy-on-write pages there.
pthread_key_t g_exit_key;
bool g_exit_key_made;

SAFERECL_UNINSTRUMENTED void unmap_table_at_exit(void* passes_left) {
  const auto left = reinterpret_cast<std::uintptr_t>(passes_left);
  if (left > 1) {
    pthread_setspecific(g_exit_key, reinterpret_cast<void*>(left - 1));
    return;
  }
  thread_model& m = t_model;
  unmap_table(m.mapped, m.pending_bits);
  m.mapped = nullptr;
  m.pending_bits = kPendingBits;
  m.pending_count = 0;
  m.exited = true;
}
__attribute__((constructor)) SAFERECL_UNINSTRUMENTED void make_exit_key() {
  g_exit_key_made = pthread_key_create(&g_exit_key, unmap_table_at_exit) == 0;
}

// Moves the set into a table twice as large. False (the set stays): at the cap, without a
// key to unmap it by, or without memory.
SAFERECL_UNINSTRUMENTED bool grow_pending(thread_model& m) {
  const unsigned bits = m.pending_bits + 1;
  if (bits > kPendingMaxBits || m.exited || !g_exit_key_made) return false;
  pending_load* const cells = map_table(bits);
  if (cells == nullptr) return false;
  if (m.mapped == nullptr &&
      pthread_setspecific(g_exit_key, reinterpret_cast<void*>(std::uintptr_t{PTHREAD_DESTRUCTOR_ITERATIONS})) != 0) {
    unmap_table(cells, bits);
    return false;
  }
  unsigned* const used = reinterpret_cast<unsigned*>(cells + (std::size_t{1} << bits));
  pending_load* const old_cells = pending_cells(m);
  const unsigned* const old_used = pending_used(m);
  for (unsigned k = 0; k < m.pending_count; ++k) {
    pending_load& p = old_cells[old_used[k]];
    unsigned i = pending_cell(p.location, p.tag, bits);
    while (cells[i].location != nullptr) i = (i + 1) & ((1u << bits) - 1);
    cells[i] = p;
    used[k] = i;
    p = {};  // the inline table is left empty
  }
  if (m.mapped != nullptr) unmap_table(m.mapped, m.pending_bits);
  m.mapped = cells;
  m.pending_bits = bits;
  return true;
}

SAFERECL_UNINSTRUMENTED unsigned bucket(const volatile void* location) {
  auto a = reinterpret_cast<std::uintptr_t>(location);
  return static_cast<unsigned>((a >> 3) * 0x9E3779B97F4A7C15ull >> (64 - kTableBits));
}

// The entry of `location`, or null; with `insert`, made if missing (null: table full).
SAFERECL_UNINSTRUMENTED entry* find(const volatile void* location, bool insert) {
  unsigned i = bucket(location);
  for (unsigned probe = 0; probe < kMaxProbes; ++probe, i = (i + 1) & ((1u << kTableBits) - 1)) {
    entry& e = g_table[i];
    const volatile void* seen = __atomic_load_n(&e.location, __ATOMIC_ACQUIRE);
    if (seen == location) return &e;
    if (seen != nullptr) continue;
    if (!insert) return nullptr;
    if (__atomic_compare_exchange_n(&e.location, &seen, location, false, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE) ||
        seen == location)
      return &e;
  }
  return nullptr;
}

SAFERECL_UNINSTRUMENTED tag_t lock(entry& e) {
  for (unsigned spins = 0;; ++spins) {
    tag_t w = __atomic_load_n(&e.word, __ATOMIC_RELAXED);
    if ((w & 1) == 0 && __atomic_compare_exchange_n(&e.word, &w, w | 1, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return w;
    if (spins > 64) sched_yield();
  }
}
SAFERECL_UNINSTRUMENTED void unlock(entry& e, tag_t t) { __atomic_store_n(&e.word, t, __ATOMIC_RELEASE); }

// A forked child has one thread: an entry another thread of the parent held locked stays
// locked there. TSan ignores a child's accesses after a multi-threaded fork, so the child
// needs the locks open, not the tags exact.
SAFERECL_UNINSTRUMENTED void open_locks_in_child() {
  if (!__atomic_load_n(&g_tagged_any, __ATOMIC_RELAXED)) return;
  for (entry& e : g_table)
    if (e.word & 1) e.word &= ~tag_t{1};
}
__attribute__((constructor)) SAFERECL_UNINSTRUMENTED void register_fork_handler() {
  pthread_atfork(nullptr, nullptr, open_locks_in_child);
}

SAFERECL_UNINSTRUMENTED void* slot_address(tag_t t) { return &g_slots[tag_row(t)][tag_slot(t)]; }

SAFERECL_UNINSTRUMENTED void acquire_tag(tag_t t) {
  if (t == 0) return;
  if (__atomic_load_n(&g_generation[tag_row(t)][tag_slot(t)], __ATOMIC_RELAXED) != tag_generation(t)) say(stale_tag);
  __tsan_acquire(slot_address(t));
}

// The tag a store of this thread takes now (0: it has not fenced), marking the slot taken.
SAFERECL_UNINSTRUMENTED tag_t take_tag() {
  thread_model& m = t_model;
  if (m.row < 0) return 0;
  m.slot_tagged = true;
  return make_tag(static_cast<unsigned>(m.row), m.slot, m.generation);
}

SAFERECL_UNINSTRUMENTED void release_fence() {
  thread_model& m = t_model;
  if (m.row < 0) {
    const unsigned taken = __atomic_fetch_add(&g_rows_taken, 1, __ATOMIC_RELAXED);
    if (taken >= kRows) say(rows_shared);
    m.row = static_cast<int>(taken % kRows);
    m.slot = 0;
  } else if (m.slot_tagged) {
    m.slot = (m.slot + 1) % kSlotsPerRow;
  }
  if (m.slot_tagged || m.generation == 0) {
    ++m.generation;
    __atomic_store_n(&g_generation[m.row][m.slot], m.generation, __ATOMIC_RELAXED);
    m.slot_tagged = false;
  }
  __tsan_release(&g_slots[m.row][m.slot]);
}

SAFERECL_UNINSTRUMENTED void acquire_pending() {
  thread_model& m = t_model;
  pending_load* const cells = pending_cells(m);
  const unsigned* const used = pending_used(m);
  for (unsigned i = 0; i < m.pending_count; ++i) {
    pending_load& p = cells[used[i]];
    __tsan_acquire(const_cast<void*>(p.location));
    acquire_tag(p.tag);
    p = {};
  }
  m.pending_count = 0;
}

SAFERECL_UNINSTRUMENTED void remember(const volatile void* location, tag_t t) {
  thread_model& m = t_model;
  // The thread's own tag orders nothing for it (its clock holds its slots' clocks).
  if (t != 0 && static_cast<int>(tag_row(t)) == m.row && __atomic_load_n(&g_rows_taken, __ATOMIC_RELAXED) <= kRows)
    t = 0;
  pending_load* const cells = pending_cells(m);
  unsigned i = pending_cell(location, t, m.pending_bits);
  for (;; i = (i + 1) & ((1u << m.pending_bits) - 1)) {
    const pending_load& p = cells[i];
    if (p.location == location && p.tag == t) return;
    if (p.location == nullptr) break;
  }
  if (m.pending_count == pending_limit(m.pending_bits)) {
    if (!grow_pending(m)) {
      say(pending_acquired_early);  // acquired before their fence: wider, never narrower
      acquire_pending();
    }
    return remember(location, t);
  }
  cells[i] = {location, t};
  pending_used(m)[m.pending_count++] = i;
}

// After a load (or the read of a read-modify-write) with order `o` that read a value tagged `t`.
SAFERECL_UNINSTRUMENTED void on_read(const volatile void* location, int o, tag_t t) {
  if (acquires(o)) acquire_tag(t);
  else remember(location, t);
}

// A load: the value and its tag, read together. The look-up is skipped until some store was
// tagged; a store that tags sets g_tagged_any before it writes, so a load that read its value
// finds the flag, and the entry, afterwards, and reads again under the entry's lock.
template <class Load>
SAFERECL_UNINSTRUMENTED auto tagged_load(const volatile void* location, Load load, tag_t& t) {
  entry* e = __atomic_load_n(&g_tagged_any, __ATOMIC_ACQUIRE) ? find(location, false) : nullptr;
  if (e == nullptr) {
    auto v = load();
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!__atomic_load_n(&g_tagged_any, __ATOMIC_RELAXED) || (e = find(location, false)) == nullptr) {
      t = 0;
      return v;
    }
  }
  t = lock(*e);
  auto v = load();
  unlock(*e, t);
  return v;
}

// A store: `o` the order asked, `t` the tag its value takes (0: none, as for every release
// store, which `store` performs as a release exchange: see the top).
template <class Store>
SAFERECL_UNINSTRUMENTED void tagged_store(const volatile void* location, int o, tag_t t, Store store) {
  entry* e = nullptr;
  if (t != 0) {
    if (!__atomic_load_n(&g_tagged_any, __ATOMIC_RELAXED)) __atomic_store_n(&g_tagged_any, true, __ATOMIC_SEQ_CST);
    if ((e = find(location, true)) == nullptr) {
      say(table_full);
      store(release);  // a release at the store, joined as above
      return;
    }
  } else if (__atomic_load_n(&g_tagged_any, __ATOMIC_ACQUIRE)) {
    e = find(location, false);
  }
  if (e == nullptr) return store(o);
  lock(*e);
  __atomic_thread_fence(__ATOMIC_RELEASE);  // the entry (and the flag) before the value: see tagged_load
  store(o);
  unlock(*e, t);
}

// Every slot any thread has released: more than any one tag carries.
SAFERECL_UNINSTRUMENTED void acquire_every_slot() {
  const unsigned rows = __atomic_load_n(&g_rows_taken, __ATOMIC_RELAXED);
  for (unsigned row = 0; row < rows && row < kRows; ++row)
    for (unsigned slot = 0; slot < kSlotsPerRow; ++slot)
      if (__atomic_load_n(&g_generation[row][slot], __ATOMIC_RELAXED) != 0) __tsan_acquire(&g_slots[row][slot]);
}

// A read-modify-write: reads, then writes with order `o`; `rmw(order)` performs it and sets
// `wrote` (false: a compare-exchange that failed, a load with `failure_order`). Once some
// store was tagged, every read-modify-write goes through its location's entry (made if
// missing), so it reads a value and its tag together; before, it reads no tag, unless the
// first tag of the process appeared meanwhile (then it acquires every slot).
template <class Rmw>
SAFERECL_UNINSTRUMENTED auto tagged_rmw(const volatile void* location, int o, int failure_order, Rmw rmw,
                                        const bool& wrote) {
  const tag_t mine = releases(o) ? 0 : take_tag();
  if (mine != 0 && !__atomic_load_n(&g_tagged_any, __ATOMIC_RELAXED))
    __atomic_store_n(&g_tagged_any, true, __ATOMIC_SEQ_CST);
  entry* e = nullptr;
  if (__atomic_load_n(&g_tagged_any, __ATOMIC_ACQUIRE)) {
    if ((e = find(location, true)) == nullptr && mine != 0) say(table_full);
  } else {
    auto v = rmw(o);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&g_tagged_any, __ATOMIC_RELAXED)) {
      say(first_tag_raced);
      acquire_every_slot();
    }
    on_read(location, wrote ? o : failure_order, 0);
    return v;
  }
  if (e == nullptr) {  // the table is full: no entry, and none can appear
    auto v = rmw(mine != 0 ? with_release(o) : o);
    on_read(location, wrote ? o : failure_order, 0);
    return v;
  }
  const tag_t before = lock(*e);
  __atomic_thread_fence(__ATOMIC_RELEASE);  // the entry (and the flag) before the value: see tagged_load
  int performed = o;
  tag_t after = before;
  // The thread's own earlier tag is in its current slot's clock already (its row is its own
  // while no more than kRows threads have fenced: read after the lock, which orders it after
  // whatever thread wrote `before`). Another thread's tag stays, and this write's fence rides
  // on a release instead: one tag per location.
  const bool own_earlier_tag = before != 0 && tag_row(before) == tag_row(mine) &&
                               __atomic_load_n(&g_rows_taken, __ATOMIC_RELAXED) <= kRows;
  if (mine != 0 && before != 0 && before != mine && !own_earlier_tag) {
    say(rmw_released);
    performed = with_release(o);
  } else if (mine != 0) {
    after = mine;
  }
  auto v = rmw(performed);
  unlock(*e, wrote ? after : before);
  on_read(location, wrote ? o : failure_order, before);
  return v;
}

}  // namespace

extern "C" {

void __real___tsan_atomic_thread_fence(int order);
SAFERECL_UNINSTRUMENTED void __wrap___tsan_atomic_thread_fence(int o) {
  if (acquires(o)) acquire_pending();
  if (releases(o)) release_fence();
  __real___tsan_atomic_thread_fence(o);
}

}  // extern "C"

// One set of wrappers per operand size: load, store, the read-modify-writes, the three
// compare-exchange flavours (clang calls _val, gcc _strong/_weak). A failed compare-exchange
// is a load with the failure order.
#define SAFERECL_TSAN_RMW(T, N, op)                                                                         \
  T __real___tsan_atomic##N##_##op(volatile T*, T, int);                                                    \
  SAFERECL_UNINSTRUMENTED T __wrap___tsan_atomic##N##_##op(volatile T* a, T v, int o) {                     \
    const bool wrote = true;                                                                                \
    return tagged_rmw(                                                                                      \
        a, o, o, [&](int order) SAFERECL_UNINSTRUMENTED { return __real___tsan_atomic##N##_##op(a, v, order); }, \
        wrote);                                                                                             \
  }
// `c` is the expected value (_val) or where it is (_strong, _weak, which write the value seen there).
#define SAFERECL_TSAN_CAS(T, N, flavour, R, C, SUCCEEDED)                                         \
  R __real___tsan_atomic##N##_compare_exchange_##flavour(volatile T*, C, T, int, int);                      \
  SAFERECL_UNINSTRUMENTED R __wrap___tsan_atomic##N##_compare_exchange_##flavour(volatile T* a, C c, T v,   \
                                                                                  int o, int f) {           \
    bool wrote = false;                                                                                     \
    return tagged_rmw(                                                                                      \
        a, o, f,                                                                                            \
        [&](int order) SAFERECL_UNINSTRUMENTED {                                                            \
          R result = __real___tsan_atomic##N##_compare_exchange_##flavour(a, c, v, order, f);               \
          wrote = SUCCEEDED;                                                                                \
          return result;                                                                                    \
        },                                                                                                  \
        wrote);                                                                                             \
  }
#define SAFERECL_TSAN_SIZE(T, N)                                                                            \
  extern "C" {                                                                                              \
  T __real___tsan_atomic##N##_load(const volatile T*, int);                                                 \
  SAFERECL_UNINSTRUMENTED T __wrap___tsan_atomic##N##_load(const volatile T* a, int o) {                    \
    tag_t t;                                                                                                \
    T v = tagged_load(a, [&]() SAFERECL_UNINSTRUMENTED { return __real___tsan_atomic##N##_load(a, o); }, t);    \
    on_read(a, o, t);                                                                                       \
    return v;                                                                                               \
  }                                                                                                         \
  void __real___tsan_atomic##N##_store(volatile T*, T, int);                                                \
  T __real___tsan_atomic##N##_exchange(volatile T*, T, int);                                                \
  SAFERECL_UNINSTRUMENTED void __wrap___tsan_atomic##N##_store(volatile T* a, T v, int o) {                 \
    tagged_store(a, o, releases(o) ? 0 : take_tag(), [&](int order) SAFERECL_UNINSTRUMENTED {               \
      if (releases(order)) (void)__real___tsan_atomic##N##_exchange(a, v, release);                         \
      else __real___tsan_atomic##N##_store(a, v, order);                                                    \
    });                                                                                                     \
  }                                                                                                         \
  SAFERECL_TSAN_RMW(T, N, exchange)                                                                         \
  SAFERECL_TSAN_RMW(T, N, fetch_add)                                                                        \
  SAFERECL_TSAN_RMW(T, N, fetch_sub)                                                                        \
  SAFERECL_TSAN_RMW(T, N, fetch_and)                                                                        \
  SAFERECL_TSAN_RMW(T, N, fetch_or)                                                                         \
  SAFERECL_TSAN_RMW(T, N, fetch_xor)                                                                        \
  SAFERECL_TSAN_RMW(T, N, fetch_nand)                                                                       \
  SAFERECL_TSAN_CAS(T, N, strong, int, T*, result != 0)                                                     \
  SAFERECL_TSAN_CAS(T, N, weak, int, T*, result != 0)                                                       \
  SAFERECL_TSAN_CAS(T, N, val, T, T, result == c)                                                 \
  }

SAFERECL_TSAN_SIZE(char, 8)
SAFERECL_TSAN_SIZE(short, 16)
SAFERECL_TSAN_SIZE(int, 32)
SAFERECL_TSAN_SIZE(long, 64)
SAFERECL_TSAN_SIZE(__int128, 128)
