// RCU test objects without an rcu_obj_base, for rcu_retire: rcu_retire accepts any T*, so
// these carry their bookkeeping like every tracked object (an id in the object log, a
// canary) but no base from the facility.
//
//   rcu_retire(new plain_object, quarantine_deleter{});   // reclaimed -> objects() records it
//   rcu_retire(new destructor_logged);                    // default_delete -> ~ records it
//   rcu_retire(new int(7), logged_delete<int>{});         // no id in the object: the deleter has one
//
// barrier_until(done) is the qoi tier's "eventually" for what a library may finish after
// rcu_barrier returned (dropping its own copies of deleters, say).
#pragma once

#include <chrono>
#include <thread>

#include "support/liveness.hpp"
#include "support/object_log.hpp"
#include "support/tracked.hpp"
#include "support/watchdog.hpp"

namespace saferecl::test {

// A tracked object that is not rcu-protectable: only rcu_retire can schedule it.
struct plain_object : tracked {
  plain_object() = default;
  explicit plain_object(int v) : value(v) {}
  int value = 0;
};

// Records its own destruction, so that deleters which end in `delete` (default_delete,
// default_delete<T[]>) can be observed without touching the object afterwards.
struct destructor_logged : tracked {
  destructor_logged() = default;
  ~destructor_logged() { objects().record_reclaim(id, this); }
};

// For objects that carry no id (int, arrays of scalars): the deleter enrolls one, records
// its run with the pointer it received, and deletes.
template <class T>
struct logged_delete {
  object_log::id_t id = objects().enroll();
  void operator()(T* p) const noexcept {
    objects().record_reclaim(id, p);
    delete p;
  }
};

#if SUT_HAS_RCU
// Calls rcu_barrier until `done()` holds, for up to `seconds` of the time the process could
// run (support/liveness.hpp: a busy machine does not shorten the window); returns done(). The
// pauses only give a library's own threads the processor; only the qoi tier may require true.
template <class Done>
bool barrier_until(Done done, double seconds = 2.0) {
  liveness_clock liveness(liveness_clock::owner::works);
  const liveness_reading start = liveness.now();
  const auto window = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(seconds));
  while (true) {
    within_watchdog("rcu_barrier", [] { sut::rcu_barrier(); });
    if (done() || liveness.expired(start, window)) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}
#endif

}  // namespace saferecl::test
