// <hazard_pointer> torture HX-03: a Treiber stack built on the standard API.
// REQUIRES: hazard-pointer
//
// Scenario: every worker pushes a burst of 1-8 fresh nodes carrying unique values, then
// pops as many; pop protects the top through `head` (protect), reads its link, unlinks it
// by CAS and retires it. Hazard pointers are what prevents ABA here: a node can be freed
// and its address reused only once no pop still holds it.
//
// Invariants ([saferecl.hp.general]/6, H8):
//  - a pop never finds the stack empty: its own thread pushed at least as many nodes as it
//    popped, and so did every other thread, so at least one node is present;
//  - every node read under protection is intact -- each top a pop looks at, including
//    one that another pop has just taken and retired while this one loses its CAS;
//  - after a final single-threaded drain, pushed and popped values agree exactly in
//    count, sum and a hashed sum (a lost, duplicated or garbage node changes them).
//
// Knobs: 1.5 s x scale; 4 workers (x sqrt(scale)); bursts of 1-8.
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct node : payload, sut::hazard_pointer_obj_base<node, poison<node>> {
  explicit node(std::uint64_t v) : payload(v) {}
  node* next = nullptr;  // written before the node is published, never after
};

class treiber_stack {
 public:
  void push(node* n) noexcept {
    n->next = head_.load(std::memory_order_relaxed);
    while (!head_.compare_exchange_weak(n->next, n, std::memory_order_release,
                                        std::memory_order_relaxed)) {
    }
  }
  // The popped node, unlinked and still protected by `h`; nullptr when empty. `intact`
  // becomes false if a top read under protection -- popped by us or not -- was poisoned.
  node* pop(sut::hazard_pointer& h, bool& intact) noexcept {
    for (;;) {
      node* top = h.protect(head_);
      if (top == nullptr) return nullptr;
      node* next = top->next;
      intact = intact && top->intact();
      if (head_.compare_exchange_weak(top, next, std::memory_order_acquire,
                                      std::memory_order_relaxed))
        return top;
    }
  }
  node* pop_unsynchronized() noexcept {
    node* top = head_.load(std::memory_order_relaxed);
    if (top != nullptr) head_.store(top->next, std::memory_order_relaxed);
    return top;
  }

 private:
  std::atomic<node*> head_{nullptr};
};

std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct tally {
  std::uint64_t count = 0, sum = 0, hashed = 0;
  void add(std::uint64_t v) noexcept {
    ++count;
    sum += v;
    hashed += mix(v);
  }
  void add(const tally& o) noexcept {
    count += o.count;
    sum += o.sum;
    hashed += o.hashed;
  }
  bool operator==(const tally&) const = default;
};

}  // namespace

TEST_CASE("saferecl.hp.general/6 H8 HX-03: a Treiber stack on hazard pointers loses and duplicates nothing" *
          doctest::test_suite("core.stress")) {
  const std::size_t workers = threads(4);
  const auto duration = scaled(1500ms);
  print_config("HX-03", {{"workers", str(workers)}, {"burst", "1-8"},
                         {"duration_ms", str(duration.count())}});

  treiber_stack stack;
  torture t("HX-03");
  std::vector<progress> ops(workers);
  for (std::size_t i = 0; i < workers; ++i) t.watch("worker " + str(i), ops[i]);
  std::vector<tally> pushed(workers), popped(workers);

  thread_group group;
  for (std::size_t w = 0; w < workers; ++w)
    group.spawn([&, w] {
      rng r(w);
      segment seg("worker " + str(w), w, "value", "intact");
      sut::hazard_pointer h = sut::make_hazard_pointer();
      std::uint64_t next_value = w;
      for (std::uint64_t it = 0; t.running(); ++it) {
        const std::uint64_t burst = 1 + r.below(8);
        for (std::uint64_t k = 0; k < burst; ++k) {
          pushed[w].add(next_value);
          stack.push(new node(next_value));
          next_value += workers;
        }
        for (std::uint64_t k = 0; k < burst; ++k) {
          bool ok = true;
          node* top = stack.pop(h, ok);
          if (top == nullptr) {
            seg.record({it, 0, {}, -1});
            t.fail(seg, "pop found the stack empty right after this thread's pushes");
            break;
          }
          ok = ok && top->intact();
          const std::uint64_t v = top->value();
          h.reset_protection();
          top->retire();
          seg.record({it, v, {}, ok});
          if (!ok) t.fail(seg, "a pop read a poisoned node (reclaimed while protected)");
          popped[w].add(v);
        }
        ops[w].bump();
      }
    });

  t.run(duration);
  t.join(group);
  tally in, out;
  for (std::size_t w = 0; w < workers; ++w) {
    in.add(pushed[w]);
    out.add(popped[w]);
  }
  std::uint64_t left = 0;
  t.settle("retiring what is left on the stack", [&] {
    while (node* n = stack.pop_unsynchronized()) {
      out.add(n->value());
      n->retire();
      ++left;
    }
  });
  t.summary({{"pushed", str(in.count)}, {"popped", str(out.count - left)}, {"left", str(left)},
             {"reclaimed", str(ledger<node>::reclaimed.load())}});
  CHECK(t.passed());
  CHECK(out.count == in.count);
  CHECK(out.sum == in.sum);
  CHECK(out.hashed == in.hashed);
  CHECK(ledger<node>::repeated.load() == 0);
}
