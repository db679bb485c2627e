// <hazard_pointer>
//
// [basic.start.term], [basic.stc.thread]: objects with thread storage duration are
//   destroyed when their thread exits, while library functions may still be called; so a
//   thread_local hazard_pointer is destroyed normally, and make_hazard_pointer, protect and
//   retire work in thread_local destructors -- in either order relative to whatever
//   per-thread state the library keeps.
// POSIX thread-specific-data destructors run after all of those; whether the library still
//   works there is not the standard's business (qoi).
//
// Relies on: the objects a thread protects being checked by that thread (violations are
// counted and asserted after the join); churn being the only portable way to provoke
// reclamation.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

using saferecl::test::churn;
using saferecl::test::hp_object;
using saferecl::test::objects;
using saferecl::test::published;

namespace {

std::atomic<std::size_t> g_violations{0};
std::atomic<std::size_t> g_exit_time_uses{0};  // calls of use_hazard_pointers_now
// The objects use_hazard_pointers_now retired, in the order of the calls (which never
// overlap: each test runs one thread and joins it).
std::vector<saferecl::test::object_log::id_t> g_exit_time_retired;

// Makes a hazard pointer, protects an object, retires it and churns: it must survive.
void use_hazard_pointers_now() {
  published x(5);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  g_exit_time_retired.push_back(x.unlink_and_retire());
  churn(saferecl::test::kChurnRound * 4);
  if (objects().reclaimed(p->id) || !p->alive()) g_violations.fetch_add(1);
  g_exit_time_uses.fetch_add(1);
}

struct uses_hazard_pointers_at_exit {
  ~uses_hazard_pointers_at_exit() { use_hazard_pointers_now(); }
};

// Owns a hazard pointer that protects a retired object when its thread exits.
struct protects_at_exit {
  sut::hazard_pointer holder;
  published object{6};
  void protect_and_retire() {
    hp_object* p = holder.protect(object.src);
    object.unlink_and_retire();
    if (!saferecl::test::intact_after_churn(*p)) g_violations.fetch_add(1);
  }
};

void run_thread(void (*body)()) {
  saferecl::test::within_watchdog("a thread that uses hazard pointers exits", [&] {
    std::thread(body).join();
  });
}

}  // namespace

TEST_CASE("saferecl.hp.holder.ctor/3 H24: a thread_local hazard_pointer made owning after the library started is destroyed at thread exit" *
          doctest::test_suite("core.lifetime")) {
  run_thread([] {
    thread_local protects_at_exit late_owner;  // constructed empty, before any library state
    late_owner.holder = sut::make_hazard_pointer();
    late_owner.protect_and_retire();
  });
  CHECK(g_violations.load() == 0);
}

TEST_CASE("saferecl.hp.holder.ctor/3 H24: a thread_local hazard_pointer initialized by make_hazard_pointer is destroyed at thread exit" *
          doctest::test_suite("core.lifetime")) {
  run_thread([] {
    churn();  // the library's per-thread state first, then the thread_local
    thread_local protects_at_exit owner{sut::make_hazard_pointer()};
    owner.protect_and_retire();
  });
  CHECK(g_violations.load() == 0);
}

TEST_CASE("saferecl.hp.holder.nonmem/1 H36: make_hazard_pointer, protect and retire work in a thread_local destructor" *
          doctest::test_suite("core.lifetime")) {
  const std::size_t uses_before = g_exit_time_uses.load();
  run_thread([] {
    thread_local uses_hazard_pointers_at_exit first_constructed;  // before any library state
    use_hazard_pointers_now();
  });
  CHECK(g_exit_time_uses.load() - uses_before == 2);
  CHECK(g_violations.load() == 0);
}

namespace {

// A POSIX key whose destructor uses hazard pointers in several destructor rounds: it
// re-arms itself, so its later rounds come after every other key's destructor of the
// first round, the library's own teardown included.
constexpr int kRounds = 3;
pthread_key_t g_late_key;

void late_key_destructor(void* round) {
  use_hazard_pointers_now();
  const auto next = reinterpret_cast<std::uintptr_t>(round) + 1;
  if (next <= kRounds) pthread_setspecific(g_late_key, reinterpret_cast<void*>(next));
}

}  // namespace

TEST_CASE("saferecl.hp.holder.nonmem/1 H36: make_hazard_pointer, protect and retire work in pthread key destructors after the thread's teardown" *
          doctest::test_suite("qoi.lifetime")) {
  REQUIRE(pthread_key_create(&g_late_key, &late_key_destructor) == 0);
  const std::size_t uses_before = g_exit_time_uses.load();
  run_thread([] {
    use_hazard_pointers_now();  // the library's per-thread state exists from here on
    pthread_setspecific(g_late_key, reinterpret_cast<void*>(std::uintptr_t{1}));
  });
  CHECK(g_exit_time_uses.load() - uses_before == 1 + kRounds);
  CHECK(g_violations.load() == 0);
  pthread_key_delete(g_late_key);
  // What those destructors retired is not lost with the thread.
  CHECK(saferecl::test::churn_until(
      [] { return saferecl::test::reclaimed_among(g_exit_time_retired) == g_exit_time_retired.size(); }));
}
