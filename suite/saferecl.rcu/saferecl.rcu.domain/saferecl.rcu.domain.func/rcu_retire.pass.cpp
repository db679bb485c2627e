// <rcu>
//
// template<class T, class D = default_delete<T>>
//   void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain());
//   Mandates: is_move_constructible_v<D> is true and the expression d(p) is well-formed.
//   Effects: may allocate memory; move-initializes an object d1 of type D from d; schedules
//   the evaluation of d1(p) in the domain dom; may evaluate scheduled evaluations in dom.
//
// T needs no base class. Relies on: rcu_barrier as the proof that the evaluation ran; no
// region open in this thread (except where a test shows that an evaluation scheduled inside
// the caller's own region has not run before the region ends); deleters that report through state living until the barrier
// returns (the test's own locals) or through the object log.
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

using saferecl::test::destructor_logged;
using saferecl::test::logged_delete;
using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::within_watchdog;

namespace {

void barrier() {
  within_watchdog("rcu_barrier after rcu_retire", [] { sut::rcu_barrier(); });
}

// Where an object was, for comparing with what a deleter received once it is gone.
std::uintptr_t address(const void* p) noexcept { return reinterpret_cast<std::uintptr_t>(p); }

// What one deleter run saw: how often it ran, the state it carried and the pointer it got.
struct observation {
  std::atomic<int> runs{0};
  std::atomic<int> state{0};
  std::atomic<std::uintptr_t> received{0};

  void record(int carried, const void* p) noexcept {
    state.store(carried);
    received.store(address(p));
    runs.fetch_add(1);
  }
};

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/8 R38: rcu_retire(p) deletes an object of a class with no base" *
          doctest::test_suite("core.semantic")) {
  auto* p = new destructor_logged;
  const auto id = p->id;
  const auto expected = address(p);
  sut::rcu_retire(p);
  sut::rcu_retire(new int(1));  // a scalar: leak or double free shows under ASan
  barrier();
  CHECK(objects().reclaim_count(id) == 1);
  CHECK(address(objects().received_pointer(id)) == expected);
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: rcu_retire(p) on a const T* uses default_delete<const T>" *
          doctest::test_suite("core.semantic")) {
  const destructor_logged* p = new destructor_logged;
  const auto id = p->id;
  sut::rcu_retire(p);
  barrier();
  CHECK(objects().reclaim_count(id) == 1);
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: rcu_retire calls a stateful deleter with its state and the pointer" *
          doctest::test_suite("core.semantic")) {
  observation seen;
  struct tagged_delete {
    observation* seen;
    int tag;
    void operator()(plain_object* p) const noexcept {
      seen->record(tag, p);
      delete p;
    }
  };
  auto* p = new plain_object;
  const auto expected = address(p);
  sut::rcu_retire(p, tagged_delete{&seen, 42});
  barrier();
  CHECK(seen.runs == 1);
  CHECK(seen.state == 42);
  CHECK(seen.received == expected);
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: rcu_retire takes a move-only deleter and calls the moved-to object" *
          doctest::test_suite("core.semantic")) {
  observation seen;
  struct move_only_delete {
    observation* seen;
    std::unique_ptr<int> payload;  // a moved-from deleter has lost it
    void operator()(plain_object* p) noexcept {
      seen->record(payload ? *payload : -1, p);
      delete p;
    }
  };
  sut::rcu_retire(new plain_object, move_only_delete{&seen, std::make_unique<int>(42)});
  barrier();
  CHECK(seen.runs == 1);
  CHECK(seen.state == 42);
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: rcu_retire takes a deleter with no default constructor passed explicitly" *
          doctest::test_suite("core.semantic")) {
  observation seen;
  struct no_default_delete {
    explicit no_default_delete(observation& s) noexcept : seen(&s) {}
    observation* seen;
    void operator()(plain_object* p) const noexcept {
      seen->record(0, p);
      delete p;
    }
  };
  sut::rcu_retire(new plain_object, no_default_delete(seen));  // D() must not be instantiated
  barrier();
  CHECK(seen.runs == 1);
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: rcu_retire with default_delete<T[]> deletes an array" *
          doctest::test_suite("core.semantic")) {
  constexpr int kElements = 4;
  auto* array = new destructor_logged[kElements];
  saferecl::test::object_log::id_t ids[kElements];
  for (int i = 0; i < kElements; ++i) ids[i] = array[i].id;
  sut::rcu_retire(array, std::default_delete<destructor_logged[]>{});
  barrier();
  for (auto id : ids) CHECK(objects().reclaim_count(id) == 1);
}

namespace {
void quarantine_plain(plain_object* p) noexcept { quarantine_deleter{}(p); }
}  // namespace

TEST_CASE("saferecl.rcu.domain.func/8 R38: rcu_retire takes a function pointer as deleter" *
          doctest::test_suite("core.semantic")) {
  auto* p = new plain_object;
  const auto id = p->id;
  sut::rcu_retire(p, &quarantine_plain);
  barrier();
  CHECK(objects().reclaim_count(id) == 1);
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: rcu_retire takes a capturing lambda as deleter" *
          doctest::test_suite("core.semantic")) {
  observation seen;
  int tag = 42;  // captured by copy: the lambda's own state
  auto* p = new plain_object;
  const auto expected = address(p);
  sut::rcu_retire(p, [&seen, tag](plain_object* q) noexcept {
    seen.record(tag, q);
    delete q;
  });
  barrier();
  CHECK(seen.runs == 1);
  CHECK(seen.state == 42);
  CHECK(seen.received == expected);
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: rcu_retire with an explicit domain schedules in it" *
          doctest::test_suite("core.semantic")) {
  auto* p = new plain_object;
  const auto id = p->id;
  auto* q = new int(7);
  const logged_delete<int> int_deleter;
  sut::rcu_retire(p, quarantine_deleter{}, sut::rcu_default_domain());
  sut::rcu_retire(q, int_deleter, sut::rcu_default_domain());
  within_watchdog("rcu_barrier(rcu_default_domain())",
                  [] { sut::rcu_barrier(sut::rcu_default_domain()); });
  CHECK(objects().reclaim_count(id) == 1);
  CHECK(objects().reclaim_count(int_deleter.id) == 1);
}

TEST_CASE("saferecl.rcu.domain.func/8 R39: rcu_retire of a null pointer calls the deleter with nullptr" *
          doctest::test_suite("core.semantic")) {
  observation seen;
  seen.received = address(&seen);  // anything but null
  sut::rcu_retire(static_cast<plain_object*>(nullptr),
                  [&seen](plain_object* q) noexcept { seen.record(0, q); });
  sut::rcu_retire(static_cast<int*>(nullptr));  // default_delete of null: nothing to free
  barrier();
  CHECK(seen.runs == 1);
  CHECK(seen.received == 0);
}

// A null p is not special: d1(nullptr) is scheduled like any evaluation, so it cannot run
// before a grace period, and none can end while the caller's own region is open.
TEST_CASE("saferecl.rcu.domain.func/8 R39: rcu_retire of a null pointer inside the caller's region defers the deleter" *
          doctest::test_suite("core.semantic")) {
  observation seen;
  sut::rcu_domain& dom = sut::rcu_default_domain();
  dom.lock();
  sut::rcu_retire(static_cast<plain_object*>(nullptr),
                  [&seen](plain_object* q) noexcept { seen.record(0, q); });
  const int runs_inside_the_region = seen.runs;
  dom.unlock();
  barrier();
  CHECK(runs_inside_the_region == 0);
  CHECK(seen.runs == 1);
}
