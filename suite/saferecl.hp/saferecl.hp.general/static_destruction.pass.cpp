// <hazard_pointer>
//
// [basic.start.term]/6: a standard library function may be used until static destruction
//   has completed; so hazard_pointer objects with static storage duration are destroyed
//   normally, and make_hazard_pointer, protect and retire work inside static destructors --
//   also when the objects were constructed before the library's own state existed, so that
//   they are destroyed after it.
//
// Relies on: each test case running in its own process (CTest runs one case per process),
// so the statics a case constructs are destroyed when it exits; a failure found during
// static destruction ends the process with exit status 1 after a message (doctest has
// reported by then). Churn is the only portable way to provoke reclamation.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <cstdio>
#include <cstdlib>

using saferecl::test::churn;
using saferecl::test::hp_object;
using saferecl::test::objects;
using saferecl::test::published;

namespace {

[[noreturn]] void fail_at_exit(const char* what) {
  std::fprintf(stderr, "[saferecl] during static destruction: %s\n", what);
  std::fflush(stderr);
  std::_Exit(saferecl::test::exit_status::kFail);
}

// Protects an object, retires it and churns; it must survive. Then releases everything.
void use_hazard_pointers_now() {
  published x(5);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();
  churn();
  if (objects().reclaimed(p->id) || !p->alive()) fail_at_exit("a protected object was reclaimed");
}

// Its destructor uses hazard pointers. Constructed before the test first touches the
// library, it is destroyed after whatever static state the library created.
struct uses_hazard_pointers_at_exit {
  ~uses_hazard_pointers_at_exit() { use_hazard_pointers_now(); }
};

// Owns a hazard pointer that protects a retired object when static destruction begins.
struct protects_at_exit {
  sut::hazard_pointer holder;
  published object{6};
  // Protects and retires the object; true if it is intact after churn.
  bool protect_and_retire() {
    hp_object* p = holder.protect(object.src);
    object.unlink_and_retire();
    return saferecl::test::intact_after_churn(*p);
  }
};

}  // namespace

TEST_CASE("saferecl.hp.holder.nonmem/1 H36: make_hazard_pointer, protect and retire work in a static destructor" *
          doctest::test_suite("core.lifetime")) {
  static uses_hazard_pointers_at_exit first_constructed;  // before any library state
  use_hazard_pointers_now();
}

TEST_CASE("saferecl.hp.holder.ctor/3 H24: a static hazard_pointer made owning after the library started is destroyed at exit" *
          doctest::test_suite("core.lifetime")) {
  static protects_at_exit late_owner;  // constructed empty, before any library state
  late_owner.holder = sut::make_hazard_pointer();
  CHECK(late_owner.protect_and_retire());
}

TEST_CASE("saferecl.hp.holder.ctor/3 H24: a static hazard_pointer initialized by make_hazard_pointer is destroyed at exit" *
          doctest::test_suite("core.lifetime")) {
  churn();  // the library's state first, then the static
  static protects_at_exit owner{sut::make_hazard_pointer()};
  CHECK(owner.protect_and_retire());
}
