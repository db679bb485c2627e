// <hazard_pointer>
//
// [saferecl.hp.general]/6: if a protection epoch of h associated with x began before x was
//   retired, the end of that epoch strongly happens before the reclamation of x.
//
// Relies on: ThreadSanitizer seeing a race when the deleter touches what a reader plainly
// wrote inside its epoch without a happens-before edge from the end of that epoch (HS-17b);
// the deleter also checks the reader's writes, so a stale read fails without TSan as well.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <atomic>
#include <cstddef>
#include <thread>

using saferecl::test::quarantine_deleter;
using saferecl::test::tracked;

namespace {

std::atomic<std::size_t> g_deleter_saw_stale{0};

// Each reader visit adds one to `visits` and copies the result into `last_visit`, both
// plainly; a deleter ordered after every visit sees the two agree.
struct visited_object;
struct checking_deleter {
  void operator()(visited_object* p) const noexcept;
};
struct visited_object : sut::hazard_pointer_obj_base<visited_object, checking_deleter>, tracked {
  visited_object() = default;
  int visits = 0;
  int last_visit = 0;
};
void checking_deleter::operator()(visited_object* p) const noexcept {
  if (p->visits != p->last_visit) g_deleter_saw_stale.fetch_add(1, std::memory_order_relaxed);
  p->visits = -1;  // a plain write: races with any visit not ordered before the deleter
  quarantine_deleter{}(p);
}

}  // namespace

TEST_CASE("saferecl.hp.general/6 H7: a reader's plain writes before ending its epoch happen before the deleter" *
          doctest::test_suite("core.concurrency")) {
  const std::size_t replacements = saferecl::test::scaled(20'000);
  std::atomic<visited_object*> src{new visited_object};
  std::atomic<bool> done{false};

  // Pacing without ordering: every kPace replacements the writer waits (relaxed loads of a
  // relaxed counter, which give TSan no edge) until the reader has visited again, so the
  // visited objects are spread over every pass however the two threads are scheduled.
  constexpr std::size_t kPace = 128;
  std::atomic<std::size_t> visited{0};
  auto writer = [&](saferecl::test::watchdog& dog) {
    std::size_t seen = 0;
    for (std::size_t i = 0; i < replacements; ++i) {
      if (i % kPace == 0) {
        while (visited.load(std::memory_order_relaxed) == seen) std::this_thread::yield();
        seen = visited.load(std::memory_order_relaxed);
        dog.progressed();
      }
      src.exchange(new visited_object, std::memory_order_acq_rel)->retire();
    }
    done.store(true, std::memory_order_release);
  };
  auto reader = [&] {
    sut::hazard_pointer h = sut::make_hazard_pointer();
    while (!done.load(std::memory_order_acquire)) {
      visited_object* p = h.protect(src);
      p->visits += 1;
      p->last_visit = p->visits;
      h.reset_protection();
      visited.fetch_add(1, std::memory_order_relaxed);
    }
  };
  saferecl::test::within_watchdog("writer replaces and retires while a reader writes",
                                  [&](saferecl::test::watchdog& dog) {
    saferecl::test::run_in_parallel(2, [&](std::size_t i) { i == 0 ? writer(dog) : reader(); });
  });
  CHECK(g_deleter_saw_stale.load() == 0);
  src.exchange(nullptr)->retire();
}
