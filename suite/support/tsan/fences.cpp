// A model of atomic_thread_fence for ThreadSanitizer, which has none: TSan derives
// happens-before from acquire and release *operations* only, so a design that synchronizes
// through fences is reported as racing even when it is correct. [atomics.fences] gives a fence
// its effect through the atomic operations around it:
//   - a release fence A, then an atomic store X (any order): X carries A's release;
//   - an atomic load Y (any order), then an acquire fence B: B acquires whatever Y read.
// The model, per thread:
//   - after the thread's first release-or-stronger fence, each of its relaxed stores (and the
//     write of a relaxed or acquire read-modify-write) is performed as a release;
//   - the addresses of its relaxed loads (and non-acquire read-modify-writes) since its last
//     acquire-or-stronger fence are remembered, and that fence acquires each of them.
// Both steps only ever add happens-before edges that the C++ model also has, or edges a little
// wider (a store after the fence releases the thread's clock at the store, not at the fence; a
// fence acquires the location's latest release, not only the one it read). So the model can
// hide a race next to a fence, and never invents one: every race TSan still reports is real.
//
// Every TSan-instrumented atomic operation and fence is a call into TSan's interface
// (__tsan_atomicN_op, __tsan_atomic_thread_fence). The battery's TSan executables are linked
// with --wrap for each of them (suite/CMakeLists.txt), so the call lands here first, then
// reaches the real entry point with the order the model gives it.
//
// The remembered loads are a bounded ring (kRememberedLoads addresses, consecutive repeats
// folded: a spin on one flag is one entry). When a thread forgets one before its acquire
// fence, the model is no longer complete there, and the process prints, once,
//   [saferecl] TSan: the fence model forgot relaxed loads before an acquire fence at <where>
// which makes any race report of the process INCONCLUSIVE (reports/tsan_evidence.py).
//
// The state is thread-local, and the wrappers are not instrumented themselves: they must not
// synchronize the threads they run on, or they would hide races of their own making.
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/tsan_interface.h>
#include <unistd.h>

#include <cstring>

#define SAFERECL_UNINSTRUMENTED __attribute__((no_sanitize("thread")))

namespace {

// The runtime's encoding of std::memory_order.
enum order : int { relaxed, consume, acquire, release, acq_rel, seq_cst };

constexpr bool acquires(int o) { return o == consume || o == acquire || o == acq_rel || o == seq_cst; }
constexpr bool releases(int o) { return o == release || o == acq_rel || o == seq_cst; }

constexpr unsigned kRememberedLoads = 1024;

struct fence_model {
  bool released = false;  // executed a release-or-stronger fence
  bool forgot = false;    // the ring overflowed since the last acquire fence
  unsigned count = 0;     // loads remembered, up to kRememberedLoads
  unsigned next = 0;      // where the ring writes next
  const volatile void* loads[kRememberedLoads];
};
thread_local constinit fence_model t_model{};

bool g_incomplete_reported = false;  // written once, by whichever thread gets there first

SAFERECL_UNINSTRUMENTED void remember_load(const volatile void* address) {
  fence_model& m = t_model;
  const unsigned last = (m.next + kRememberedLoads - 1) % kRememberedLoads;
  if (m.count > 0 && m.loads[last] == address) return;
  if (m.count == kRememberedLoads) m.forgot = true;
  else ++m.count;
  m.loads[m.next] = address;
  m.next = (m.next + 1) % kRememberedLoads;
}

// "<function> <file:line>" of the caller and of up to two functions it is inlined in.
SAFERECL_UNINSTRUMENTED void report_incomplete(void* caller) {
  if (__atomic_exchange_n(&g_incomplete_reported, true, __ATOMIC_RELAXED)) return;
  char frames[1024] = {};
  __sanitizer_symbolize_pc(caller, "%f %L", frames, sizeof frames - 1);
  char line[1200] = "[saferecl] TSan: the fence model forgot relaxed loads before an acquire fence at ";
  int shown = 0;
  for (const char* frame = frames; *frame != '\0' && shown++ < 3; frame += std::strlen(frame) + 1) {
    if (frame != frames) std::strncat(line, " < ", sizeof line - std::strlen(line) - 2);
    std::strncat(line, frame, sizeof line - std::strlen(line) - 2);
  }
  std::strcat(line, "\n");
  (void)!::write(STDERR_FILENO, line, std::strlen(line));
}

// The order a store (or the write of a read-modify-write) is performed with.
SAFERECL_UNINSTRUMENTED int store_order(int o) {
  if (!t_model.released || releases(o)) return o;
  return o == relaxed ? release : acq_rel;
}

// Before a load (or the read of a read-modify-write) with order `o` from `address`.
SAFERECL_UNINSTRUMENTED void on_read(const volatile void* address, int o) {
  if (!acquires(o)) remember_load(address);
}

}  // namespace

extern "C" {

void __real___tsan_atomic_thread_fence(int order);
SAFERECL_UNINSTRUMENTED void __wrap___tsan_atomic_thread_fence(int o) {
  fence_model& m = t_model;
  if (acquires(o)) {
    if (m.forgot) report_incomplete(__builtin_return_address(0));
    for (unsigned i = 0; i < m.count; ++i) __tsan_acquire(const_cast<void*>(m.loads[i]));
    m.count = m.next = 0;
    m.forgot = false;
  }
  if (releases(o)) m.released = true;
  __real___tsan_atomic_thread_fence(o);
}

}  // extern "C"

// One set of wrappers per operand size: load, store, the read-modify-writes, the three
// compare-exchange flavours (clang calls _val, gcc _strong/_weak).
#define SAFERECL_TSAN_RMW(T, N, op)                                                  \
  T __real___tsan_atomic##N##_##op(volatile T*, T, int);                             \
  SAFERECL_UNINSTRUMENTED T __wrap___tsan_atomic##N##_##op(volatile T* a, T v, int o) {                      \
    on_read(a, o);                                                                   \
    return __real___tsan_atomic##N##_##op(a, v, store_order(o));                     \
  }
#define SAFERECL_TSAN_CAS(T, N, flavour, R, C)                                       \
  R __real___tsan_atomic##N##_compare_exchange_##flavour(volatile T*, C, T, int, int); \
  SAFERECL_UNINSTRUMENTED R __wrap___tsan_atomic##N##_compare_exchange_##flavour(volatile T* a, C c, T v, int o, \
                                                                           int f) {          \
    on_read(a, acquires(o) && acquires(f) ? acquire : relaxed);                      \
    return __real___tsan_atomic##N##_compare_exchange_##flavour(a, c, v, store_order(o), f); \
  }
#define SAFERECL_TSAN_SIZE(T, N)                                                     \
  extern "C" {                                                                       \
  T __real___tsan_atomic##N##_load(const volatile T*, int);                          \
  SAFERECL_UNINSTRUMENTED T __wrap___tsan_atomic##N##_load(const volatile T* a, int o) { \
    on_read(a, o);                                                                   \
    return __real___tsan_atomic##N##_load(a, o);                                     \
  }                                                                                  \
  void __real___tsan_atomic##N##_store(volatile T*, T, int);                         \
  SAFERECL_UNINSTRUMENTED void __wrap___tsan_atomic##N##_store(volatile T* a, T v, int o) { \
    __real___tsan_atomic##N##_store(a, v, store_order(o));                           \
  }                                                                                  \
  SAFERECL_TSAN_RMW(T, N, exchange)                                                  \
  SAFERECL_TSAN_RMW(T, N, fetch_add)                                                 \
  SAFERECL_TSAN_RMW(T, N, fetch_sub)                                                 \
  SAFERECL_TSAN_RMW(T, N, fetch_and)                                                 \
  SAFERECL_TSAN_RMW(T, N, fetch_or)                                                  \
  SAFERECL_TSAN_RMW(T, N, fetch_xor)                                                 \
  SAFERECL_TSAN_RMW(T, N, fetch_nand)                                                \
  SAFERECL_TSAN_CAS(T, N, strong, int, T*)                                           \
  SAFERECL_TSAN_CAS(T, N, weak, int, T*)                                             \
  SAFERECL_TSAN_CAS(T, N, val, T, T)                                                 \
  }

SAFERECL_TSAN_SIZE(char, 8)
SAFERECL_TSAN_SIZE(short, 16)
SAFERECL_TSAN_SIZE(int, 32)
SAFERECL_TSAN_SIZE(long, 64)
SAFERECL_TSAN_SIZE(__int128, 128)
