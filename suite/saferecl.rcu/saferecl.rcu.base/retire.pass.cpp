// <rcu>
//
// template<class T, class D = default_delete<T>>
// void rcu_obj_base<T, D>::retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: let x be *this cast to T (the complete object); move-assigns d to deleter;
//   schedules the evaluation of deleter(addressof(x)) in dom; may evaluate scheduled
//   evaluations in dom.
// [saferecl.rcu.base]/4-5: D is callable with T*, Cpp17DefaultConstructible and
//   Cpp17MoveAssignable -- not necessarily copyable.
//
// Relies on: rcu_barrier as the proof that the deleter ran; no region open in this thread;
// deleters that report through the test's own locals, alive until the barrier returns.
#include "support/test.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

using saferecl::test::objects;
using saferecl::test::tracked;
using saferecl::test::within_watchdog;

namespace {

void barrier() {
  within_watchdog("rcu_barrier after retire", [] { sut::rcu_barrier(); });
}

std::uintptr_t address(const void* p) noexcept { return reinterpret_cast<std::uintptr_t>(p); }

struct observation {
  std::atomic<int> runs{0};
  std::atomic<int> state{0};
  std::atomic<std::uintptr_t> received{0};
};

struct odd_layout;

// Default-constructible, as rcu_obj_base requires; the state it is retired with is what
// must reach the call.
struct tagged_delete {
  observation* seen = nullptr;
  int tag = 0;
  void operator()(odd_layout* p) const noexcept;
};

// The rcu_obj_base subobject is not at offset 0 (a non-empty base comes first), and unary
// operator& is unusable: the deleter must receive addressof(complete object).
struct first_base {
  std::uint64_t bytes[3] = {1, 2, 3};
};
struct odd_layout : first_base, sut::rcu_obj_base<odd_layout, tagged_delete> {
  odd_layout() = default;
  void operator&() const = delete;
};

void tagged_delete::operator()(odd_layout* p) const noexcept {
  seen->state.store(tag);
  seen->received.store(address(p));
  seen->runs.fetch_add(1);
  delete p;
}

struct move_only_delete {
  observation* seen = nullptr;
  std::unique_ptr<int> payload;  // lost by a copy-less implementation that drops the argument
  template <class T>
  void operator()(T* p) noexcept {
    seen->state.store(payload ? *payload : -1);
    seen->runs.fetch_add(1);
    delete p;
  }
};
struct with_move_only_deleter : sut::rcu_obj_base<with_move_only_deleter, move_only_delete> {
  with_move_only_deleter() = default;
};

struct default_deleted : sut::rcu_obj_base<default_deleted>, tracked {
  default_deleted() = default;
  ~default_deleted() { objects().record_reclaim(id, this); }
};

}  // namespace

TEST_CASE("saferecl.rcu.base/9 R16: retire calls the deleter it was given, with its state, on the complete object" *
          doctest::test_suite("core.semantic")) {
  observation seen;
  auto* x = new odd_layout;
  const auto complete = address(std::addressof(*x));
  // An empty rcu_obj_base may share offset 0 with first_base: then the address check below
  // cannot tell the two pointers apart, and the deleter and state checks still stand.
  if (address(static_cast<sut::rcu_obj_base<odd_layout, tagged_delete>*>(x)) == complete)
    MESSAGE("rcu_obj_base is empty and at offset 0: the complete-object address check is vacuous");
  x->retire(tagged_delete{&seen, 42});
  barrier();
  CHECK(seen.runs == 1);
  CHECK(seen.state == 42);
  CHECK(seen.received == complete);
}

TEST_CASE("saferecl.rcu.base/9 R16: retire with an explicit domain schedules in it" *
          doctest::test_suite("core.semantic")) {
  observation seen;
  auto* x = new odd_layout;
  x->retire(tagged_delete{&seen, 7}, sut::rcu_default_domain());
  within_watchdog("rcu_barrier(rcu_default_domain())",
                  [] { sut::rcu_barrier(sut::rcu_default_domain()); });
  CHECK(seen.runs == 1);
  CHECK(seen.state == 7);
}

TEST_CASE("saferecl.rcu.base/5 R12: retire takes a move-only deleter and calls the moved-in state" *
          doctest::test_suite("core.semantic")) {
  observation seen;
  (new with_move_only_deleter)->retire(move_only_delete{&seen, std::make_unique<int>(42)});
  barrier();
  CHECK(seen.runs == 1);
  CHECK(seen.state == 42);
}

TEST_CASE("saferecl.rcu.base/9 R16: retire() with default_delete destroys the object once" *
          doctest::test_suite("core.semantic")) {
  auto* x = new default_deleted;
  const auto id = x->id;
  x->retire();
  barrier();
  CHECK(objects().reclaim_count(id) == 1);
}
