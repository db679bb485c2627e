// <hazard_pointer>
//
// retire, protect, try_protect, both reset_protection, swap, the move operations and the
// destructor of hazard_pointer are noexcept: an allocation failure inside them must not
// escape (it would call std::terminate), and must not cost the protection they promise.
//
// Relies on: the replaced operator new failing from the k-th allocation of the armed
// thread, in a fresh child per k (fault::fork_sweep), with the operations run on a fresh
// thread, so that any lazy per-thread setup happens under the failure too. A terminate
// shows as SIGABRT. Everything the checks allocate is allocated before arming.
#include "support/test.hpp"
#include "support/hp_checks.hpp"
#include "support/hp_fault.hpp"

#include <cstddef>
#include <thread>
#include <utility>
#include <vector>

namespace fault = saferecl::test::fault;
using saferecl::test::check_fault_sweep;
using saferecl::test::churn;
using saferecl::test::completion_status;
using saferecl::test::hp_object;
using saferecl::test::objects;
using saferecl::test::published;
using saferecl::test::violation;

namespace {

// Runs `scenario(allowed)` on a fresh thread and returns its status.
template <class Scenario>
int on_fresh_thread(Scenario scenario, std::size_t allowed) {
  int status = 0;
  std::thread([&] { status = scenario(allowed); }).join();
  return status;
}

// A fresh thread whose first call into the library is retire: it retires an object that
// this thread protects, plus enough unprotected ones to run reclamation passes, all while
// allocation fails. The protected one must survive.
int retire_under_failure(std::size_t allowed) {
  published x(1);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  hp_object* unlinked = x.src.exchange(nullptr);
  std::vector<hp_object*> unprotected(saferecl::test::kDefaultChurn);
  for (auto*& q : unprotected) q = new hp_object;
  int status = 0;
  std::thread([&] {
    fault::armed failing(allowed);
    unlinked->retire();
    for (hp_object* q : unprotected) q->retire();
    status = completion_status();
  }).join();
  churn();
  if (objects().reclaimed(p->id) || !p->alive()) return violation("a protected object was reclaimed");
  return status;
}

// Every noexcept member of hazard_pointer, while allocation fails; the protection each one
// promises must hold afterwards.
int holder_operations_under_failure(std::size_t allowed) {
  published x(1), y(2), z(3);
  sut::hazard_pointer a = sut::make_hazard_pointer();
  sut::hazard_pointer b = sut::make_hazard_pointer();
  sut::hazard_pointer c = sut::make_hazard_pointer();
  hp_object *p, *q, *r;
  int status;
  {
    fault::armed failing(allowed);
    p = a.protect(x.src);
    q = y.src.load();
    while (!b.try_protect(q, y.src)) {
    }
    r = z.src.load();
    c.reset_protection(r);
    c.reset_protection();
    c.reset_protection(nullptr);
    c.reset_protection(static_cast<const hp_object*>(r));
    a.swap(b);
    swap(a, b);
    sut::hazard_pointer moved(std::move(c));
    c = std::move(moved);
    status = completion_status();
  }
  x.unlink_and_retire();
  y.unlink_and_retire();
  z.unlink_and_retire();
  churn();
  for (const hp_object* o : {p, q, r})
    if (objects().reclaimed(o->id) || !o->alive()) return violation("a protected object was reclaimed");
  return status;
}

// Destroys hazard pointers (made on another thread, so none comes from this thread's own
// state) while allocation fails.
int destruction_under_failure(std::size_t allowed) {
  std::vector<sut::hazard_pointer> holders(64);
  std::thread([&] {
    for (auto& h : holders) h = sut::make_hazard_pointer();
  }).join();
  return on_fresh_thread(
      [&](std::size_t k) {
        fault::armed failing(k);
        holders.clear();
        return completion_status();
      },
      allowed);
}

}  // namespace

TEST_CASE("saferecl.hp.base/7 H18: retire lets no allocation failure escape and still protects" *
          doctest::test_suite("core.fault")) {
  check_fault_sweep(retire_under_failure);
}

TEST_CASE("saferecl.hp.holder.mem/5 H20: the noexcept members of hazard_pointer let no allocation failure escape" *
          doctest::test_suite("core.fault")) {
  check_fault_sweep([](std::size_t k) { return on_fresh_thread(holder_operations_under_failure, k); });
}

TEST_CASE("saferecl.hp.holder.ctor/3 H24: destroying hazard_pointers lets no allocation failure escape" *
          doctest::test_suite("core.fault")) {
  check_fault_sweep(destruction_under_failure);
}
