// <rcu>
//
// rcu_domain& rcu_default_domain() noexcept;
//   Returns: a reference to a static-duration object of type rcu_domain.
// template<class T, class D> void rcu_retire(T* p, D d = D(), rcu_domain& dom = ...);
// void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
//
// A static object constructed after the default domain is destroyed before it
// ([basic.start.term]/3), so its destructor may still use the domain: retire, and run a
// barrier that covers both its own retire and evaluations left pending when main returned
// (RS-19). Relies on: the checking object's constructor calling rcu_default_domain()
// first, which completes the domain's initialization before its own; the object log
// never being destroyed. A failure inside the destructor ends the process with exit code 1.
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

using saferecl::test::object_log;
using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::rcu_object;

namespace {

// Checks, during static destruction, that everything it was told about has been reclaimed.
class exit_check {
 public:
  exit_check() : domain_(&sut::rcu_default_domain()) {}
  ~exit_check() {
    auto* late = new plain_object;
    expected_.push_back(late->id);
    sut::rcu_retire(late, quarantine_deleter{}, *domain_);
    sut::rcu_barrier(*domain_);
    for (auto id : expected_) {
      if (objects().reclaim_count(id) != 1) {
        std::fprintf(stderr, "[saferecl] static destructor: object %zu ran %d times after rcu_barrier\n",
                     id, objects().reclaim_count(id));
        std::_Exit(saferecl::test::exit_status::kFail);
      }
    }
  }
  void expect(object_log::id_t id) { expected_.push_back(id); }

 private:
  sut::rcu_domain* domain_;
  std::vector<object_log::id_t> expected_;
};

exit_check& checker() {
  static exit_check check;  // built on first use: after the domain, destroyed before it
  return check;
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/4 R33: a static destructor may rcu_retire and rcu_barrier, covering work left pending at exit" *
          doctest::test_suite("core.lifetime")) {
  exit_check& check = checker();
  auto* x = new rcu_object;
  check.expect(x->id);
  x->retire();
  auto* y = new plain_object;
  check.expect(y->id);
  sut::rcu_retire(y, quarantine_deleter{});
  // No barrier here: both are still pending when main returns.
}
