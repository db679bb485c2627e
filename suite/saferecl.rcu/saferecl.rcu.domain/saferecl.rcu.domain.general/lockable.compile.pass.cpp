// <rcu>
//
// [saferecl.rcu.domain.general]/1: rcu_domain meets the Cpp17Lockable requirements
//   ([thread.req.lockable.req]), so the standard's lock types and algorithms accept it:
//   scoped_lock<rcu_domain> lock(rcu_default_domain());
//
// Relies on: the exact member types are checked in saferecl.rcu.domain.members; here the
// requirement is shown by use. rcu_default_domain() is the only domain; regions nest and
// are always closed by the thread that opened them. Nothing is retired and no other thread
// runs, so no use can block.
#include "support/test.hpp"

#include <mutex>

TEST_CASE("saferecl.rcu.domain.general/1 R21: scoped_lock lock_guard unique_lock and std::lock accept an rcu_domain" *
          doctest::test_suite("core.api")) {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  { std::scoped_lock<sut::rcu_domain> l(sut::rcu_default_domain()); }
  { std::scoped_lock l(dom); }
  { std::lock_guard<sut::rcu_domain> g(dom); }
  {
    std::unique_lock<sut::rcu_domain> u(dom);
    CHECK(u.owns_lock());
    u.unlock();
    u.lock();
  }
  {
    std::unique_lock<sut::rcu_domain> u(dom, std::try_to_lock);
    CHECK(u.owns_lock());
  }
  {
    std::unique_lock<sut::rcu_domain> u(dom, std::defer_lock);
    CHECK(u.try_lock());
  }
  {
    std::mutex m;
    std::lock(dom, m);
    m.unlock();
    dom.unlock();
  }
  {
    std::mutex m;
    CHECK(std::try_lock(dom, m) == -1);
    m.unlock();
    dom.unlock();
  }
  {
    std::mutex m;
    std::scoped_lock both(dom, m);
  }
}
