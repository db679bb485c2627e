// <rcu>
//
// template<class T, class D = default_delete<T>>
// void rcu_obj_base<T, D>::retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: let x be *this cast to T; move-assigns d to deleter; schedules the evaluation
//   of deleter(addressof(x)) in dom.
// [saferecl.rcu.domain.func]/4: rcu_barrier returns once every evaluation scheduled before
//   it has run (and it may itself run scheduled evaluations).
//
// Custody while other threads run barriers (issue 39). An implementation that queues x
// where another thread's rcu_barrier (or callback thread) can run it before it has stored
// x's deleter invokes a default-constructed or half-written deleter. Here several threads
// retire objects with move-only, heap-owning deleters that carry their object's tag while
// other threads loop on rcu_barrier; each retirer, after each retire, waits until a
// barrier elsewhere has completed twice, so that the evaluation it just scheduled is
// usually run by another thread while the retirer does nothing that synchronizes with it:
// a deleter stored after its evaluation was queued is then either the default-constructed
// one (the tag check) or a write that races with the other thread's invocation (TSan).
// Afterwards one more rcu_barrier proves every deleter ran: each ran once, with its own
// state; no deleter object was destroyed twice or invoked after its destruction.
//
// Relies on: rcu_barrier as the only proof that deleters ran (the waits in between are
// pacing only, and bounded); no region open on any of these threads.
#include "support/test.hpp"
#include "support/custody.hpp"
#include "support/rcu_objects.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

using saferecl::test::check_custody_of_the_reclaimed;
using saferecl::test::custody_set;
using saferecl::test::tagged_deleter;
using saferecl::test::thread_group;
using saferecl::test::tracked;
using saferecl::test::within_watchdog;

namespace {

struct tagged_object : sut::rcu_obj_base<tagged_object, tagged_deleter>, tracked {
  std::uint64_t tag = 0;
};

}  // namespace

TEST_CASE("saferecl.rcu.base/9 R16: custody: objects retired on several threads while others run rcu_barrier are reclaimed by their own move-only deleters" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kRetirers = 2;
  constexpr std::size_t kBarriers = 2;
  const std::size_t per_retirer = saferecl::test::scaled(150);
  std::vector<custody_set> sets(kRetirers);
  std::atomic<std::size_t> retiring{kRetirers};
  std::atomic<std::uint64_t> barriers_done{0};

  within_watchdog("threads retire tagged objects while others loop on rcu_barrier",
                  [&](saferecl::test::watchdog& dog) {
    thread_group barriers;
    for (std::size_t i = 0; i < kBarriers; ++i)
      barriers.spawn([&] {
        while (retiring.load(std::memory_order_acquire) != 0) {
          sut::rcu_barrier();
          barriers_done.fetch_add(1, std::memory_order_release);
          dog.progressed();
        }
      });
    thread_group retirers;
    for (std::size_t r = 0; r < kRetirers; ++r)
      retirers.spawn([&, r] {
        for (std::size_t i = 0; i < per_retirer; ++i) {
          auto* p = new tagged_object;
          p->tag = p->id + 1;
          sets[r].add(p);
          const std::uint64_t before = barriers_done.load(std::memory_order_acquire);
          p->retire(tagged_deleter(p->tag));
          // Pacing: a barrier that began after this point has completed elsewhere.
          while (barriers_done.load(std::memory_order_acquire) < before + 2)
            std::this_thread::yield();
        }
        retiring.fetch_sub(1, std::memory_order_acq_rel);
      });
  });

  within_watchdog("rcu_barrier after the retires", [] { sut::rcu_barrier(); });
  custody_set all;
  for (const custody_set& s : sets) all.merge(s);
  CHECK(all.reclaimed() == all.size());
  check_custody_of_the_reclaimed(all);
  CHECK(saferecl::test::custody_wrong_tag().load() == 0);
}
