// <rcu> torture RX-01, RX-08, RX-09: the pipe-count torture of rcutorture and liburcu.
// REQUIRES: rcu
//
// Scenario (RX-01): each writer owns a slot `current[w]` and a pool of elements. It
// publishes a fresh element (age 0) by exchange and sets the removed one's age to 1; then,
// at random, either
//  - sync:  puts it in its pipe and calls rcu_synchronize(); every element in the pipe
//           then ages by one, or
//  - async: rcu_retire(element, stage{}); the stage deleter ages the element by one and
//           hands it back to its writer, which schedules the next stage (the writer, not
//           the deleter, re-retires: re-entrant retire is implementation-defined).
// An element that reaches kPipeLen is marked dead and returns to the pool. Readers open a
// region (lock, try_lock, a nested pair, or scoped_lock), load a slot, check the element
// is alive, wait a random rcutorture-mix delay, and read its age at the end of the region
// -- in the nested form after the inner unlock, still inside the outer region. Fake
// writers loop rcu_synchronize(), or now and then rcu_barrier(), with sleeps of up to 1 ms.
//
// Invariant ([saferecl.rcu.general]/5, R3, R22, R25, R29): an element is aged to 2 only by
// a grace period that began after its removal, which must wait for every region that could
// have loaded it; so no reader ever sees age >= 2 (and never a dead element); try_lock
// returns true. After the final rcu_barrier no stage is left running (R33). The pipe-count
// histogram is printed: hist[i] for i >= 2 must be 0.
//
// Variants:
//  - RX-08 read-exit: a spawner also starts bursts of 1-4 threads that each run one reader
//    region and exit (retiring a token half of the time); a burst in four is spawned and
//    joined while the spawner itself holds a region (those threads retire nothing: a
//    retire may block for a grace period, which would then wait for the spawner);
//    rcu_barrier between bursts now and then. Exited threads must not hold back grace
//    periods, and their tokens must run by the final barrier.
//  - RX-09 stutter: every 400 ms all torture threads pause together for 100 ms, outside
//    their regions and grace periods, then resume (idle -> busy transitions, sleeping
//    waiters).
// Writer stalls (a slot that stops changing, a fake writer stuck) end the run with a dump.
//
// Knobs: 3 s (RX-01) / 2 s (RX-08, RX-09) x scale; RX-08 0.8 s quick (suite/README.md, "Stress
// durations"); 4 readers, 2 writers, 2 fake writers (x sqrt(scale)); kPipeLen 10; 64 elements
// per writer.
#include "support/stress_harness.hpp"
#include "support/test.hpp"

#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

namespace {

using namespace saferecl::test;
using namespace saferecl::test::stress;

constexpr int kPipeLen = 10;
constexpr std::size_t kPoolPerWriter = 64;

struct writer_state;

struct element {
  element(std::uint64_t i, writer_state* w) : index(i), owner(w) {}
  std::atomic<int> age{0};
  std::atomic<bool> alive{false};
  const std::uint64_t index;
  writer_state* const owner;
  element* next_done = nullptr;  // link in the owner's list of finished stages
};

// One asynchronous stage: a grace period has passed since it was scheduled.
struct stage {
  void operator()(element* e) const noexcept;
};

struct writer_state {
  explicit writer_state(std::size_t w) {
    for (std::size_t i = 0; i < kPoolPerWriter; ++i)
      storage.push_back(std::make_unique<element>(w * kPoolPerWriter + i, this));
    for (std::size_t i = 1; i < kPoolPerWriter; ++i) free.push_back(storage[i].get());
  }

  void push_done(element* e) noexcept {  // from any thread that runs a stage
    e->next_done = done.load(std::memory_order_relaxed);
    while (!done.compare_exchange_weak(e->next_done, e, std::memory_order_release,
                                       std::memory_order_relaxed)) {
    }
  }
  void recycle(element* e) {
    e->alive.store(false, std::memory_order_relaxed);
    free.push_back(e);
    ++recycled;
  }
  // Schedules the next stage of every element whose stage finished, or recycles it.
  void collect() {
    for (element* e = done.exchange(nullptr, std::memory_order_acquire); e != nullptr;) {
      element* next = e->next_done;
      if (e->age.load(std::memory_order_relaxed) >= kPipeLen) {
        --in_async;
        recycle(e);
      } else {
        sut::rcu_retire(e, stage{});
        ++async_stages;
      }
      e = next;
    }
  }
  void synchronize_and_age() {
    sut::rcu_synchronize();
    ++syncs;
    std::erase_if(pipe, [this](element* e) {
      if (e->age.fetch_add(1, std::memory_order_relaxed) + 1 < kPipeLen) return false;
      recycle(e);
      return true;
    });
  }
  element* take_free() {
    collect();
    while (free.empty()) {
      if (!pipe.empty())
        synchronize_and_age();
      else
        sut::rcu_barrier();  // lets the asynchronous stages finish
      collect();
    }
    element* e = free.back();
    free.pop_back();
    return e;
  }

  std::vector<std::unique_ptr<element>> storage;
  std::vector<element*> free, pipe;
  std::atomic<element*> done{nullptr};
  // Written by the owner only; atomic because a stall dump reads them meanwhile.
  std::atomic<std::uint64_t> in_async{0}, async_stages{0}, syncs{0}, recycled{0};
};

void stage::operator()(element* e) const noexcept {
  e->age.fetch_add(1, std::memory_order_relaxed);
  e->owner->push_done(e);
}

// Holds every torture thread between iterations while a stutter pause lasts.
class stutter_gate {
 public:
  void pass(const torture& t) const {
    while (paused_.load(std::memory_order_acquire) && t.running()) std::this_thread::sleep_for(1ms);
  }
  void set(bool paused) { paused_.store(paused, std::memory_order_release); }

 private:
  std::atomic<bool> paused_{false};
};

std::atomic<std::uint64_t> g_tokens_run{0};  // namespace scope: deleters outlive blocks
struct token {};
struct count_token {
  void operator()(token* p) const noexcept {
    g_tokens_run.fetch_add(1, std::memory_order_relaxed);
    delete p;
  }
};

struct options {
  const char* name;
  std::chrono::milliseconds quick;  // stress_duration's two lengths
  std::chrono::milliseconds base;
  bool read_exit = false;
  bool stutter = false;
};

void pipe_torture(const options& opt) {
  const std::size_t readers = threads(4), writers = threads(2), fakes = threads(2);
  const auto duration = stress_duration(opt.quick, opt.base);
  print_config(opt.name, {{"readers", str(readers)}, {"writers", str(writers)},
                          {"fake_writers", str(fakes)}, {"pipe_len", str(kPipeLen)},
                          {"read_exit", opt.read_exit ? "on" : "off"},
                          {"stutter", opt.stutter ? "400ms/100ms" : "off"},
                          {"duration_ms", str(duration.count())}});

  std::vector<std::unique_ptr<writer_state>> ws;
  std::vector<std::atomic<element*>> current(writers);
  for (std::size_t w = 0; w < writers; ++w) {
    ws.push_back(std::make_unique<writer_state>(w));
    element* first = ws[w]->storage[0].get();
    first->alive.store(true, std::memory_order_relaxed);
    current[w].store(first, std::memory_order_relaxed);
  }

  torture t(opt.name);
  stutter_gate gate;
  std::vector<progress> reads(readers), writes(writers), fake_ops(fakes);
  progress bursts, stutters;
  for (std::size_t i = 0; i < readers; ++i) t.watch("reader " + str(i), reads[i]);
  for (std::size_t i = 0; i < writers; ++i) t.watch("writer " + str(i), writes[i]);
  for (std::size_t i = 0; i < fakes; ++i) t.watch("fake writer " + str(i), fake_ops[i]);
  if (opt.read_exit) t.watch("read-exit spawner", bursts);
  if (opt.stutter) t.watch("stutter", stutters);
  std::vector<std::vector<std::uint64_t>> hist(readers, std::vector<std::uint64_t>(kPipeLen + 1));
  std::vector<std::atomic<std::uint64_t>> exit_hist(kPipeLen + 1);  // read-exit threads
  std::atomic<std::uint64_t> barriers{0}, exit_threads{0}, tokens{0};
  const std::uint64_t tokens_run_before = g_tokens_run.load();

  // One reader region; returns the age seen at its end (-1: no region, try_lock failed).
  auto read_once = [&](rng& r, segment& seg, std::uint64_t it) -> int {
    sut::rcu_domain& dom = sut::rcu_default_domain();
    const std::size_t w = r.below(writers);
    const std::uint64_t form = r.below(8);
    element* p = nullptr;
    bool alive = false;
    int age = 0;
    delay d = draw(r);
    auto body = [&] {
      p = current[w].load(std::memory_order_acquire);
      alive = p->alive.load(std::memory_order_relaxed);
      d();
      age = p->age.load(std::memory_order_relaxed);
    };
    if (form == 0) {
      if (!dom.try_lock()) {
        t.fail("rcu_domain::try_lock() returned false");
        return -1;
      }
      body();
      dom.unlock();
    } else if (form == 1) {  // the element is read in an inner region, its age after it
      dom.lock();
      dom.lock();
      p = current[w].load(std::memory_order_acquire);
      alive = p->alive.load(std::memory_order_relaxed);
      d();
      dom.unlock();
      delay{delay::kind::spin, static_cast<std::uint32_t>(r.below(256))}();
      age = p->age.load(std::memory_order_relaxed);
      dom.unlock();
    } else if (form == 2) {
      std::scoped_lock region(dom);
      body();
    } else {
      dom.lock();
      body();
      dom.unlock();
    }
    seg.record({it, p->index, d, age});
    if (!alive) t.fail(seg, "a reader loaded a dead (recycled) element");
    if (age >= 2)
      t.fail(seg, "a reader saw an element age by a whole grace period during its region");
    return std::min(age, kPipeLen);
  };

  thread_group group;
  for (std::size_t i = 0; i < readers; ++i)
    group.spawn([&, i] {
      rng r(i);
      segment seg("reader " + str(i), i, "element", "age");
      for (std::uint64_t it = 0;; ++it) {
        gate.pass(t);
        if (!t.running()) break;
        if (const int age = read_once(r, seg, it); age >= 0) ++hist[i][age];
        reads[i].bump();
      }
    });
  for (std::size_t w = 0; w < writers; ++w)
    group.spawn([&, w] {
      rng r(100 + w);
      writer_state& s = *ws[w];
      for (;;) {
        gate.pass(t);
        if (!t.running()) break;
        element* fresh = s.take_free();
        fresh->age.store(0, std::memory_order_relaxed);
        fresh->alive.store(true, std::memory_order_relaxed);
        element* old = current[w].exchange(fresh, std::memory_order_acq_rel);
        old->age.store(1, std::memory_order_relaxed);
        if (r.one_in(2)) {
          s.pipe.push_back(old);
          s.synchronize_and_age();
        } else {
          ++s.in_async;
          ++s.async_stages;
          sut::rcu_retire(old, stage{});
        }
        writes[w].bump();
      }
    });
  for (std::size_t f = 0; f < fakes; ++f)
    group.spawn([&, f] {
      rng r(200 + f);
      for (;;) {
        gate.pass(t);
        if (!t.running()) break;
        if (r.one_in(8)) {
          sut::rcu_barrier();
          barriers.fetch_add(1, std::memory_order_relaxed);
        } else {
          sut::rcu_synchronize();
        }
        fake_ops[f].bump();
        std::this_thread::sleep_for(std::chrono::microseconds(r.below(1000)));
      }
    });
  if (opt.read_exit)
    group.spawn([&] {
      rng r(300);
      for (std::uint64_t burst = 0;; ++burst) {
        gate.pass(t);
        if (!t.running()) break;
        const std::uint64_t n = 1 + r.below(4);
        const bool hold = r.one_in(4);
        if (hold) sut::rcu_default_domain().lock();
        std::vector<std::thread> members;
        for (std::uint64_t k = 0; k < n; ++k)
          members.emplace_back([&, hold, stream = 10'000 + burst * 4 + k] {
            rng rr(stream);
            segment seg("read-exit thread " + str(stream), stream, "element", "age");
            if (const int age = read_once(rr, seg, 0); age >= 0)
              exit_hist[age].fetch_add(1, std::memory_order_relaxed);
            if (!hold && rr.one_in(2)) {
              sut::rcu_retire(new token, count_token{});
              tokens.fetch_add(1, std::memory_order_relaxed);
            }
          });
        for (auto& m : members) m.join();
        if (hold) sut::rcu_default_domain().unlock();
        exit_threads.fetch_add(n, std::memory_order_relaxed);
        if (r.one_in(4)) sut::rcu_barrier();
        bursts.bump();
      }
    });
  if (opt.stutter)
    group.spawn([&] {
      while (t.running()) {
        for (int i = 0; i < 40 && t.running(); ++i) std::this_thread::sleep_for(10ms);
        gate.set(true);
        for (int i = 0; i < 10 && t.running(); ++i) std::this_thread::sleep_for(10ms);
        gate.set(false);
        stutters.bump();
      }
    });

  auto dump = [&](std::ostream& os) {
    for (std::size_t w = 0; w < writers; ++w)
      os << "  writer " << w << ": syncs=" << ws[w]->syncs << " async_stages="
         << ws[w]->async_stages << " in_async=" << ws[w]->in_async << " recycled="
         << ws[w]->recycled << '\n';
  };
  t.run(duration, dump);
  t.join(group, dump);

  t.settle("final rcu_barrier", [] { sut::rcu_barrier(); }, dump);
  std::uint64_t syncs = 0, stages = 0, recycled = 0, left_running = 0, replacements = 0;
  for (std::size_t w = 0; w < writers; ++w) {
    writer_state& s = *ws[w];
    for (element* e = s.done.exchange(nullptr); e != nullptr; e = e->next_done) --s.in_async;
    left_running += s.in_async;
    syncs += s.syncs;
    stages += s.async_stages;
    recycled += s.recycled;
    replacements += writes[w].get();
  }
  std::vector<std::uint64_t> h(kPipeLen + 1);
  for (int age = 0; age <= kPipeLen; ++age) {
    h[age] = exit_hist[age].load();
    for (auto& per_reader : hist) h[age] += per_reader[age];
  }
  std::uint64_t total_reads = 0;
  for (auto n : h) total_reads += n;
  std::uint64_t fake_total = 0;
  for (auto& f : fake_ops) fake_total += f.get();
  std::ostringstream extra;
  print_histogram(extra, std::string("[saferecl] ") + opt.name + " pipe (age seen at region end)", h,
                  ">=" + std::to_string(kPipeLen));
  t.summary({{"reads", str(total_reads)}, {"replacements", str(replacements)},
             {"synchronizes", str(syncs)}, {"async_stages", str(stages)},
             {"recycled", str(recycled)}, {"fake_writer_ops", str(fake_total)},
             {"fake_barriers", str(barriers.load())}, {"exit_threads", str(exit_threads.load())},
             {"tokens", str(tokens.load())}, {"stutters", str(stutters.get())}},
            extra.str());
  CHECK(t.passed());
  for (int age = 2; age <= kPipeLen; ++age) CHECK_MESSAGE(h[age] == 0, "pipe[", age, "]");
  CHECK_MESSAGE(left_running == 0, "stages still unfinished after rcu_barrier()");
  CHECK(g_tokens_run.load() - tokens_run_before == tokens.load());
}

}  // namespace

TEST_CASE("saferecl.rcu.general/5 R3 RX-01: no reader sees an element age by a grace period" *
          doctest::test_suite("core.stress")) {
  pipe_torture({.name = "RX-01", .quick = 3000ms, .base = 3000ms});
}

TEST_CASE("saferecl.rcu.general/5 R3 RX-08: the pipe-count torture survives readers that exit" *
          doctest::test_suite("core.stress")) {
  pipe_torture({.name = "RX-08", .quick = 800ms, .base = 2000ms, .read_exit = true});
}

TEST_CASE("saferecl.rcu.general/5 R3 RX-09: the pipe-count torture survives stutter" *
          doctest::test_suite("core.stress")) {
  pipe_torture({.name = "RX-09", .quick = 2000ms, .base = 2000ms, .stutter = true});
}
