// Annotations for a libc++ whose compiled part is not TSan-instrumented (Debian's libc++.a,
// a vendor's prebuilt runtime): they add, through TSan's interface, the happens-before edges
// that the runtime makes inside code TSan never sees. Linked only when the driver chose them
// (./conformance ... --tsan-runtime annotated, or by default when the runtime probe races
// and no instrumented libc++ is cached: driver/cxx_runtime.py), with --wrap for each symbol
// of libcxx_runtime.symbols, so that every call from instrumented code reaches the wrapper
// first.
//
//   std::call_once    __call_once runs the callable, then publishes completion with a
//                     release store inside the archive; later callers take the header's
//                     inline fast path, an acquire load of the same flag. The callable is
//                     run through a trampoline that releases on the flag before returning
//                     (before the archive's store), and every caller acquires on it after.
//   std::barrier      __arrive_barrier_algorithm_base counts arrivals in the archive; the
//                     thread that completes the phase then stores the phase inline. Each
//                     arrival releases on the barrier's algorithm object, and the completing
//                     arrival acquires on it, so the phase store carries every arrival.
//
// std::latch, std::counting_semaphore and atomic wait/notify keep their state in inline
// atomics (instrumented); their out-of-line waits only block, and need nothing here.
#include <sanitizer/tsan_interface.h>

namespace {

struct once_call {
  void* argument;
  void (*callable)(void*);
  volatile unsigned long* flag;
};

void run_then_release(void* p) {
  auto* call = static_cast<once_call*>(p);
  call->callable(call->argument);
  __tsan_release(const_cast<unsigned long*>(call->flag));
}

}  // namespace

extern "C" {

// std::__1::__call_once(unsigned long volatile&, void*, void (*)(void*))
void __real__ZNSt3__111__call_onceERVmPvPFvS2_E(volatile unsigned long&, void*, void (*)(void*));
void __wrap__ZNSt3__111__call_onceERVmPvPFvS2_E(volatile unsigned long& flag, void* argument,
                                                  void (*callable)(void*)) {
  once_call call{argument, callable, &flag};
  __real__ZNSt3__111__call_onceERVmPvPFvS2_E(flag, &call, run_then_release);
  __tsan_acquire(const_cast<unsigned long*>(&flag));
}

// std::__1::__arrive_barrier_algorithm_base(std::__1::__barrier_algorithm_base*, unsigned char)
bool __real__ZNSt3__131__arrive_barrier_algorithm_baseEPNS_24__barrier_algorithm_baseEh(void*, unsigned char);
bool __wrap__ZNSt3__131__arrive_barrier_algorithm_baseEPNS_24__barrier_algorithm_baseEh(void* algorithm,
                                                                                        unsigned char phase) {
  __tsan_release(algorithm);
  const bool completed =
      __real__ZNSt3__131__arrive_barrier_algorithm_baseEPNS_24__barrier_algorithm_baseEh(algorithm, phase);
  if (completed) __tsan_acquire(algorithm);
  return completed;
}

}  // extern "C"
