// <hazard_pointer> torture HX-04: a Michael-Scott queue built on the standard API.
// REQUIRES: hazard-pointer
//
// Scenario: producers enqueue their own increasing sequence numbers, consumers dequeue,
// with two hazard pointers per operation: the dequeuer protects `head` (protect) and then
// the successor that carries the value. The successor is associated with
// reset_protection(next) *before* the CAS that moves `head` onto it, so that when the CAS
// succeeds the epoch began before whatever later CAS unlinks and retires that node
// (H7: the retiring CAS reads from ours); the value is read only after that CAS. Enqueue
// protects `tail` the same way. Producers pause while more than kBacklog values wait.
//
// Invariants ([saferecl.hp.general]/6, H7, H8): nodes read by an operation are intact;
// each consumer sees every producer's sequence strictly increasing (FIFO); after a final
// drain, dequeued values equal enqueued ones in count, sum and hashed sum.
//
// Progress is watched for all producers together and all consumers together, not per
// thread: the queue is lock-free, not wait-free, and both waits (a producer's for the
// backlog, a consumer's on an empty queue) yield. On 2 shared cores the threads phase-lock:
// one producer and one consumer run only when their faster twins yield, that is exactly when
// the backlog is full or the queue empty, and find nothing to do for seconds (seen under
// load in the optimized tier: the starved pair's counts were multiples of kBacklog + 1). A
// thread that never returns still fails: the join runs under the settle watchdog.
//
// Knobs: 1.5 s x scale; 2 producers and 2 consumers (x sqrt(scale)); backlog 10,000.
#include "support/stress_harness.hpp"
#include "support/stress_objects.hpp"
#include "support/test.hpp"

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

struct node : payload, sut::hazard_pointer_obj_base<node, poison<node>> {
  explicit node(std::uint64_t v) : payload(v) {}
  std::atomic<node*> next{nullptr};
};

class ms_queue {
 public:
  ms_queue() {
    node* dummy = new node(0);
    head_.store(dummy, std::memory_order_relaxed);
    tail_.store(dummy, std::memory_order_relaxed);
  }

  // False if a node read on the way was poisoned.
  bool enqueue(sut::hazard_pointer& h, node* n) noexcept {
    for (;;) {
      node* t = h.protect(tail_);
      if (!t->intact()) return false;
      node* next = t->next.load(std::memory_order_acquire);
      if (t != tail_.load(std::memory_order_acquire)) continue;
      if (next != nullptr) {
        tail_.compare_exchange_strong(t, next, std::memory_order_acq_rel);
        continue;
      }
      node* expected = nullptr;
      if (t->next.compare_exchange_strong(expected, n, std::memory_order_acq_rel)) {
        tail_.compare_exchange_strong(t, n, std::memory_order_acq_rel);
        h.reset_protection();
        return true;
      }
    }
  }

  enum class result { empty, value, poisoned };
  result dequeue(sut::hazard_pointer& hh, sut::hazard_pointer& hn, std::uint64_t& value) noexcept {
    for (;;) {
      node* h = hh.protect(head_);
      node* t = tail_.load(std::memory_order_acquire);
      node* next = h->next.load(std::memory_order_acquire);
      if (h != head_.load(std::memory_order_acquire)) continue;
      if (next == nullptr) return result::empty;
      if (h == t) {  // tail lags behind: help it, never retire the node tail points at
        tail_.compare_exchange_strong(t, next, std::memory_order_acq_rel);
        continue;
      }
      hn.reset_protection(next);
      if (head_.compare_exchange_strong(h, next, std::memory_order_acq_rel)) {
        const bool ok = h->intact() && next->intact();
        value = next->value();
        hn.reset_protection();
        hh.reset_protection();
        h->retire();
        return ok ? result::value : result::poisoned;
      }
    }
  }

  // Single-threaded, at the end: the values left, then the last dummy is retired.
  template <class F>
  void drain(F&& f) {
    node* h = head_.load(std::memory_order_relaxed);
    while (node* next = h->next.load(std::memory_order_relaxed)) {
      f(next->value());
      h->retire();
      h = next;
    }
    h->retire();
  }

 private:
  alignas(64) std::atomic<node*> head_;
  alignas(64) std::atomic<node*> tail_;
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

constexpr std::uint64_t kProducerBits = 8;  // value = sequence << 8 | producer
constexpr std::uint64_t kBacklog = 10'000;

}  // namespace

TEST_CASE("saferecl.hp.general/6 H7 HX-04: a Michael-Scott queue on hazard pointers keeps every value in producer order" *
          doctest::test_suite("core.stress")) {
  const std::size_t producers = threads(2), consumers = threads(2);
  const auto duration = scaled(1500ms);
  print_config("HX-04", {{"producers", str(producers)}, {"consumers", str(consumers)},
                         {"backlog", str(kBacklog)}, {"duration_ms", str(duration.count())}});

  ms_queue queue;
  torture t("HX-04");
  progress enqueued, dequeued;
  t.watch("the producers", enqueued);
  t.watch("the consumers", dequeued);
  std::vector<tally> in(producers), out(consumers);
  std::uint64_t empty_polls = 0;

  thread_group group;
  for (std::size_t p = 0; p < producers; ++p)
    group.spawn([&, p] {
      segment seg("producer " + str(p), 100 + p, "value", "intact");
      sut::hazard_pointer h = sut::make_hazard_pointer();
      for (std::uint64_t seq = 1; t.running(); ++seq) {
        while (enqueued.get() > dequeued.get() + kBacklog && t.running()) std::this_thread::yield();
        const std::uint64_t v = seq << kProducerBits | p;
        in[p].add(v);
        const bool ok = queue.enqueue(h, new node(v));
        seg.record({seq, v, {}, ok});
        if (!ok) t.fail(seg, "enqueue read a poisoned tail node");
        enqueued.bump();
      }
    });
  std::vector<std::uint64_t> polls(consumers);
  for (std::size_t c = 0; c < consumers; ++c)
    group.spawn([&, c] {
      segment seg("consumer " + str(c), 200 + c, "value", "result");
      sut::hazard_pointer hh = sut::make_hazard_pointer(), hn = sut::make_hazard_pointer();
      std::vector<std::uint64_t> last(producers, 0);
      for (std::uint64_t it = 0; t.running(); ++it) {
        std::uint64_t v = 0;
        const auto res = queue.dequeue(hh, hn, v);
        if (res == ms_queue::result::empty) {
          ++polls[c];
          std::this_thread::yield();
          continue;
        }
        const std::uint64_t producer = v & ((1u << kProducerBits) - 1), seq = v >> kProducerBits;
        seg.record({it, v, {}, static_cast<std::int64_t>(res)});
        if (res == ms_queue::result::poisoned)
          t.fail(seg, "dequeue read a poisoned node (reclaimed while protected)");
        else if (producer >= producers || seq <= last[producer])
          t.fail(seg, "a producer's values came out of order, twice, or were garbage");
        else
          last[producer] = seq;
        out[c].add(v);
        dequeued.bump();
      }
    });

  t.run(duration);
  t.join(group);
  tally all_in, all_out;
  for (auto& x : in) all_in.add(x);
  for (auto& x : out) all_out.add(x);
  const std::uint64_t taken = all_out.count;
  t.settle("draining the queue", [&] { queue.drain([&](std::uint64_t v) { all_out.add(v); }); });
  for (auto p : polls) empty_polls += p;
  t.summary({{"enqueued", str(all_in.count)}, {"dequeued", str(taken)},
             {"left", str(all_out.count - taken)}, {"empty_polls", str(empty_polls)},
             {"reclaimed", str(ledger<node>::reclaimed.load())}});
  CHECK(t.passed());
  CHECK(all_out.count == all_in.count);
  CHECK(all_out.sum == all_in.sum);
  CHECK(all_out.hashed == all_in.hashed);
  CHECK(ledger<node>::repeated.load() == 0);
}
