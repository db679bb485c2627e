// native.bench.cpp -- liburcu at its best, through its own API, beside the adapter's cases:
// the urcu-memb flavor with the read side inline (_LGPL_SOURCE) and every benchmark thread
// registered before it is timed, as liburcu's documentation recommends for speed. The cases
// have the adapter cases' names, so the report puts them in the same rows:
//
//   rcu/lock_unlock       urcu_memb_read_lock() + urcu_memb_read_unlock()
//   rcu/synchronize       urcu_memb_synchronize_rcu(), no thread inside a region
//   rcu/retire_barrier    urcu_memb_call_rcu() of kBatch objects (allocated with new, freed by
//                         delete in the callback) + urcu_memb_barrier(), per object; each
//                         object gets an rcu_head node of its own (new), as the case's objects
//                         have no room for one
//   rcu/obj_retire_barrier  the same with the rcu_head inside the object (liburcu's intended use)
#define _LGPL_SOURCE 1
#include <urcu/urcu-memb.h>

#include <benchmark/benchmark.h>

#include <cstddef>

#include <bench_support.hpp>  // suite/bench: the cases' registration, as for the adapter's

namespace {

using namespace saferecl_bench;

// Registered for the lifetime of one benchmark thread's run of a case.
class RegisteredThread {
 public:
  RegisteredThread() { urcu_memb_register_thread(); }
  ~RegisteredThread() { urcu_memb_unregister_thread(); }
  RegisteredThread(const RegisteredThread&) = delete;
  RegisteredThread& operator=(const RegisteredThread&) = delete;
};

void lock_unlock(benchmark::State& state) {
  const RegisteredThread registered;
  for (auto _ : state) {
    urcu_memb_read_lock();
    urcu_memb_read_unlock();
  }
}

void synchronize(benchmark::State& state) {
  const RegisteredThread registered;
  for (auto _ : state) urcu_memb_synchronize_rcu();
}

struct Payload {
  rcu_head head;
  long value = 0;
};

void free_payload(rcu_head* head) {
  delete reinterpret_cast<Payload*>(reinterpret_cast<char*>(head) - offsetof(Payload, head));
}

// An object with no rcu_head of its own, and the node that carries it to its callback.
struct PlainPayload {
  long value = 0;
};
struct Deferred {
  rcu_head head;
  PlainPayload* object;
};

void free_deferred(rcu_head* head) {
  auto* node = reinterpret_cast<Deferred*>(reinterpret_cast<char*>(head) - offsetof(Deferred, head));
  delete node->object;
  delete node;
}

constexpr int kBatch = 1024;

void retire_barrier(benchmark::State& state) {
  const RegisteredThread registered;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i)
      urcu_memb_call_rcu(&(new Deferred{{}, new PlainPayload})->head, free_deferred);
    urcu_memb_barrier();
  }
  set_objects_per_iteration(state, kBatch);
}

void obj_retire_barrier(benchmark::State& state) {
  const RegisteredThread registered;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) urcu_memb_call_rcu(&(new Payload)->head, free_payload);
    urcu_memb_barrier();
  }
  set_objects_per_iteration(state, kBatch);
}

}  // namespace

SAFERECL_BENCH(lock_unlock, "rcu/lock_unlock")->Threads(4)->Threads(8);
SAFERECL_BENCH_REAL_TIME(synchronize, "rcu/synchronize");
SAFERECL_BENCH_REAL_TIME(retire_barrier, "rcu/retire_barrier");
SAFERECL_BENCH_REAL_TIME(obj_retire_barrier, "rcu/obj_retire_barrier");
