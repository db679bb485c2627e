// RCU test objects without an rcu_obj_base, for rcu_retire: rcu_retire accepts any T*, so
// these carry their bookkeeping like every tracked object (an id in the object log, a
// canary) but no base from the facility.
//
//   rcu_retire(new plain_object, quarantine_deleter{});   // reclaimed -> objects() records it
//   rcu_retire(new destructor_logged);                    // default_delete -> ~ records it
//   rcu_retire(new int(7), logged_delete<int>{});         // no id in the object: the deleter has one
#pragma once

#include "support/object_log.hpp"
#include "support/tracked.hpp"

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

}  // namespace saferecl::test
