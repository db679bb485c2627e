// <hazard_pointer> torture HX-05: hand-over-hand traversal against concurrent unlink.
// REQUIRES: hazard-pointer
//
// Scenario: a sorted singly linked list (keys 1..kKeys after a permanent head) with one
// writer that inserts and removes random keys. Removal unlinks x (pred->next = x->next),
// then points x->next at a permanent `removed` marker, then retires x. Readers traverse
// hand over hand with two alternating holders: the successor is protected through the
// current node's `next` (protect) while the current node is still held, then the roles
// swap. A reader that reaches the marker restarts from the head.
//
// Why the successor is protected (H8): the reader read y from x->next; before y can be
// retired, the writer modifies x->next -- by unlinking y if x is y's predecessor, or by
// storing the marker when it removed x earlier -- so the try_protect coherence rule
// applies to src = x->next.
//
// Invariants ([saferecl.hp.general]/6, H8): every node reached is intact and keys rise
// strictly along a traversal and stay within 1..kKeys.
//
// Knobs: 1.5 s x scale; 1 writer, 3 readers (x sqrt(scale)); 64 keys; readers stop early
// at a random key half of the time and take rcutorture-mix delays at each node.
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct node : payload, sut::hazard_pointer_obj_base<node, poison<node>> {
  node(std::uint64_t key, node* succ) : payload(key), next(succ) {}
  std::uint64_t key() const noexcept { return value(); }
  std::atomic<node*> next;
};

constexpr std::uint64_t kKeys = 64;

// The writer's view: the only thread that links or unlinks, so it needs no protection.
class sorted_list {
 public:
  sorted_list() : removed_(~std::uint64_t{0}, nullptr), head_(0, nullptr) {}

  node& head() noexcept { return head_; }
  const node* removed_marker() const noexcept { return &removed_; }

  void insert(std::uint64_t key) {
    node* pred = predecessor(key);
    node* succ = pred->next.load(std::memory_order_relaxed);
    pred->next.store(new node(key, succ), std::memory_order_release);
  }
  void remove(std::uint64_t key) noexcept {
    node* pred = predecessor(key);
    node* x = pred->next.load(std::memory_order_relaxed);
    pred->next.store(x->next.load(std::memory_order_relaxed), std::memory_order_release);
    x->next.store(&removed_, std::memory_order_release);
    x->retire();
  }
  void clear() noexcept {
    node* p = head_.next.exchange(nullptr, std::memory_order_relaxed);
    while (p != nullptr) {
      node* next = p->next.load(std::memory_order_relaxed);
      p->retire();
      p = next;
    }
  }

 private:
  node* predecessor(std::uint64_t key) noexcept {  // last node with a smaller key
    node* pred = &head_;
    for (node* n; (n = pred->next.load(std::memory_order_relaxed)) != nullptr && n->key() < key;)
      pred = n;
    return pred;
  }

  node removed_;
  node head_;
};

}  // namespace

TEST_CASE("saferecl.hp.general/6 H8 HX-05: hand-over-hand traversal stays safe against concurrent unlink" *
          doctest::test_suite("core.stress")) {
  const std::size_t readers = threads(3);
  const auto duration = scaled(1500ms);
  print_config("HX-05", {{"readers", str(readers)}, {"writers", "1"}, {"keys", str(kKeys)},
                         {"duration_ms", str(duration.count())}});

  sorted_list list;
  torture t("HX-05");
  progress updates;
  std::vector<progress> traversals(readers);
  t.watch("writer", updates);
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), traversals[i]);
  std::vector<std::uint64_t> restarts(readers), visited(readers);

  thread_group group;
  group.spawn([&] {
    rng r(1000);
    std::vector<bool> present(kKeys + 1, false);
    while (t.running()) {
      const std::uint64_t key = 1 + r.below(kKeys);
      if (present[key])
        list.remove(key);
      else
        list.insert(key);
      present[key] = !present[key];
      updates.bump();
    }
  });
  for (std::size_t i = 0; i < readers; ++i)
    group.spawn([&, i] {
      rng r(i);
      segment seg("reader " + str(i), i, "key", "intact");
      sut::hazard_pointer hp[2] = {sut::make_hazard_pointer(), sut::make_hazard_pointer()};
      const delay_mix mix{.long_sleep_one_in = 0, .sleep_one_in = 20'000, .yield_one_in = 256,
                          .max_spin = 64};
      for (std::uint64_t it = 0; t.running(); ++it) {
        const std::uint64_t stop_at = r.one_in(2) ? 1 + r.below(kKeys) : kKeys + 1;
        std::uint64_t last_key = 0;
        std::size_t cur = 0;
        node* n = hp[cur].protect(list.head().next);
        while (n != nullptr && t.running()) {
          if (n == list.removed_marker()) {
            ++restarts[i];
            break;
          }
          const std::uint64_t key = n->key();
          const bool ok = n->intact() && key > last_key && key <= kKeys;
          const delay d = draw(r, mix);
          d();
          seg.record({it, key, d, ok && n->intact()});
          if (!ok || !n->intact()) {
            t.fail(seg, "a traversal reached a poisoned node, or keys did not rise");
            break;
          }
          ++visited[i];
          if (key >= stop_at) break;
          last_key = key;
          cur ^= 1;
          n = hp[cur].protect(n->next);  // the current node stays held by hp[cur ^ 1]
        }
        hp[0].reset_protection();
        hp[1].reset_protection();
        traversals[i].bump();
      }
    });

  t.run(duration);
  t.join(group);
  t.settle("retiring the list", [&] { list.clear(); });
  std::uint64_t total_restarts = 0, total_visited = 0, total_traversals = 0;
  for (std::size_t i = 0; i < readers; ++i) {
    total_restarts += restarts[i];
    total_visited += visited[i];
    total_traversals += traversals[i].get();
  }
  t.summary({{"updates", str(updates.get())}, {"traversals", str(total_traversals)},
             {"nodes_visited", str(total_visited)}, {"restarts_at_removed", str(total_restarts)},
             {"reclaimed", str(ledger<node>::reclaimed.load())}});
  CHECK(t.passed());
  CHECK(ledger<node>::repeated.load() == 0);
}
