// <hazard_pointer>
//
// [saferecl.hp.general]/6: x is not reclaimed while any protection epoch associated with x
//   that began before x's retirement lasts -- whichever hazard pointer, on whichever thread.
//
// Relies on: a handshake (the threads report their epochs begun before the retire) making
// each epoch begin before the retirement; churn being the only portable way to provoke
// reclamation. Workers check the objects they protect and count violations; the main
// thread, which protects nothing, looks only at the object log.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>

using saferecl::test::churn;
using saferecl::test::event;
using saferecl::test::hp_object;
using saferecl::test::objects;
using saferecl::test::published;

namespace {

constexpr std::size_t kThreads = 4;

// Begins an epoch on the object `src` holds, in one of the three ways there are.
hp_object* begin_epoch(sut::hazard_pointer& h, const std::atomic<hp_object*>& src, std::size_t way) {
  switch (way % 3) {
    case 0:
      return h.protect(src);
    case 1: {
      hp_object* p = src.load(std::memory_order_relaxed);
      while (!h.try_protect(p, src)) {
      }
      return p;
    }
    default: {  // unvalidated: fine here, the handshake orders it before the retire
      hp_object* p = src.load(std::memory_order_acquire);
      h.reset_protection(p);
      return p;
    }
  }
}

struct worker_signals {
  event protecting;
  event release;
  event released;
};

}  // namespace

TEST_CASE("saferecl.hp.general/6 H7: an object protected by several holders on several threads survives until the last epoch ends" *
          doctest::test_suite("core.concurrency")) {
  published shared(42);
  std::array<std::unique_ptr<published>, kThreads> own;
  for (auto& x : own) x = std::make_unique<published>(7);
  std::array<worker_signals, kThreads> signals;
  std::atomic<std::size_t> violations{0};

  auto worker = [&](std::size_t t) {
    sut::hazard_pointer first = sut::make_hazard_pointer();
    sut::hazard_pointer second = sut::make_hazard_pointer();
    sut::hazard_pointer mine = sut::make_hazard_pointer();
    hp_object* a = begin_epoch(first, shared.src, t);
    hp_object* b = begin_epoch(second, shared.src, t + 1);
    hp_object* c = begin_epoch(mine, own[t]->src, t + 2);
    signals[t].protecting.set();
    signals[t].release.wait();
    for (const hp_object* p : {a, b}) {
      if (!p->alive() || p->value != 42) violations.fetch_add(1, std::memory_order_relaxed);
    }
    if (!c->alive() || c->value != 7) violations.fetch_add(1, std::memory_order_relaxed);
    first.reset_protection();  // the holders end their epochs in different ways
    second = sut::hazard_pointer{};
  };  // `mine` ends with the thread's stack frame

  saferecl::test::within_watchdog("threads protect, the main thread retires and releases them one by one", [&] {
    saferecl::test::thread_group threads;
    for (std::size_t t = 0; t < kThreads; ++t)
      threads.spawn([&, t] {
        worker(t);
        signals[t].released.set();
      });
    for (auto& s : signals) s.protecting.wait();

    const auto shared_id = shared.unlink_and_retire();
    std::array<saferecl::test::object_log::id_t, kThreads> own_ids{};
    for (std::size_t t = 0; t < kThreads; ++t) own_ids[t] = own[t]->unlink_and_retire();

    for (std::size_t t = 0; t < kThreads; ++t) {
      churn();
      CHECK_FALSE(objects().reclaimed(shared_id));  // threads t.. still protect it
      for (std::size_t u = t; u < kThreads; ++u) CHECK_FALSE(objects().reclaimed(own_ids[u]));
      signals[t].release.set();
      signals[t].released.wait();
    }
  });
  CHECK(violations.load() == 0);
}
