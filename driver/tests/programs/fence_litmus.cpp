// Litmus programs for the TSan fence model (suite/support/tsan/fences.cpp), built and judged
// by driver/tests/test_tsan_fence_model.py: `fence_litmus CASE`. Each case is one execution
// shape; the test says whether TSan must report a race in it. Threads meet through relaxed
// spins only, which TSan does not take for synchronization, so every happens-before edge a
// case has comes from the fence under test.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

namespace {

int data;
std::atomic<int> flag{0};
std::atomic<int> go{0};
std::atomic<int> done{0};

void wait_for(const std::atomic<int>& a, int value) {
  while (a.load(std::memory_order_relaxed) != value) std::this_thread::yield();
}
int read_data() { return *static_cast<volatile int*>(&data); }

// Release fence then relaxed store; relaxed load then acquire fence: message passing. Clean.
void message_passing() {
  std::thread writer([] {
    data = 1;
    std::atomic_thread_fence(std::memory_order_release);
    flag.store(1, std::memory_order_relaxed);
  });
  std::thread reader([] {
    wait_for(flag, 1);
    std::atomic_thread_fence(std::memory_order_acquire);
    (void)read_data();
  });
  writer.join();
  reader.join();
}

// The write comes after the release fence, before the store: the fence does not release it,
// and an acquire that reads the store does not order the reader's read after it. A race.
void write_after_the_release_fence(bool acquire_load) {
  std::thread writer([] {
    std::atomic_thread_fence(std::memory_order_release);
    data = 1;
    flag.store(1, std::memory_order_relaxed);
  });
  std::thread reader([acquire_load] {
    if (acquire_load) {
      while (flag.load(std::memory_order_acquire) != 1) std::this_thread::yield();
    } else {
      wait_for(flag, 1);
      std::atomic_thread_fence(std::memory_order_acquire);
    }
    (void)read_data();
  });
  writer.join();
  reader.join();
}

// The read comes after the relaxed load, before the acquire fence: not ordered. A race.
void read_before_the_acquire_fence() {
  std::thread writer([] {
    data = 1;
    flag.store(1, std::memory_order_release);
  });
  std::thread reader([] {
    wait_for(flag, 1);
    (void)read_data();
    std::atomic_thread_fence(std::memory_order_acquire);
  });
  writer.join();
  reader.join();
}

// A relaxed read-modify-write of another thread continues the fence's release sequence: the
// reader that reads the RMW's value synchronizes with the writer's fence. Clean.
void release_sequence_through_a_relaxed_rmw() {
  std::thread writer([] {
    data = 1;
    std::atomic_thread_fence(std::memory_order_release);
    flag.store(1, std::memory_order_relaxed);
  });
  std::thread bumper([] {
    wait_for(flag, 1);
    flag.fetch_add(1, std::memory_order_relaxed);
  });
  std::thread reader([] {
    wait_for(flag, 2);
    std::atomic_thread_fence(std::memory_order_acquire);
    (void)read_data();
  });
  writer.join();
  bumper.join();
  reader.join();
}

// The reader's relaxed load reads the writer's release store; before its acquire fence, an
// unrelated thread release-stores the flag again. The fence still synchronizes with the store
// the load read. Clean (TSan replaces a location's clock at a release store: a model that
// acquires the location's clock at the fence would lose the writer and invent a race).
void release_store_overwritten_before_the_acquire_fence() {
  std::thread writer([] {
    data = 1;
    flag.store(1, std::memory_order_release);
  });
  std::thread reader([] {
    wait_for(flag, 1);
    go.store(1, std::memory_order_relaxed);
    wait_for(done, 1);
    std::atomic_thread_fence(std::memory_order_acquire);
    (void)read_data();
  });
  std::thread other([] {
    wait_for(go, 1);
    flag.store(2, std::memory_order_release);
    done.store(1, std::memory_order_relaxed);
  });
  writer.join();
  reader.join();
  other.join();
}

// A completion flag in memory its waiter reuses once it has read the flag set (a marker on a
// stack, a node handed back): the release store -- its write included -- happens before the
// acquire load that reads it, so the waiter's later plain write of those bytes is ordered
// after it. Clean (a model that releases first and writes relaxed after it leaves the write
// one step past the release, and invents a race with the reuse).
void completion_flag_reused_after_its_acquire() {
  alignas(std::atomic<int>) static unsigned char storage[sizeof(std::atomic<int>)];
  auto* finished = new (storage) std::atomic<int>(0);
  std::thread completer([finished] { finished->store(1, std::memory_order_release); });
  while (finished->load(std::memory_order_acquire) != 1) std::this_thread::yield();
  std::memset(storage, 0, sizeof storage);
  completer.join();
}

// A relaxed load synchronizes with nothing until an acquire fence follows it, however many
// other loads come between. The reader sees the flag relaxed, reads many other atomics
// relaxed, then the data: with no fence, a race (the model holds the loads for a fence that
// may come; a model that acquired them once its set was full hid it); with an acquire fence
// before the read, clean (the flag's load, held that long, still reaches the fence).
void read_after_many_relaxed_loads(bool acquire_fence) {
  static std::atomic<int> counters[2000];  // past the loads the model kept inline (768)
  std::thread writer([] {
    data = 1;
    flag.store(1, std::memory_order_release);
  });
  std::thread reader([acquire_fence] {
    wait_for(flag, 1);
    int sum = 0;
    for (auto& c : counters) sum += c.load(std::memory_order_relaxed);
    if (acquire_fence) std::atomic_thread_fence(std::memory_order_acquire);
    (void)(read_data() + sum);
  });
  writer.join();
  reader.join();
}

// Two threads write one plain vector, unsynchronized; one of them first reads many atomics
// relaxed and runs a seq_cst fence. No fence stands between the writes: a race, and evidence.
void race_beside_a_fence_after_many_loads() {
  static std::vector<int> scratch(64);
  static std::atomic<int> slots[4096];
  std::thread scanner([] {
    int seen = 0;
    for (auto& s : slots) seen += s.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (int& x : scratch) x = seen;
  });
  std::thread other([] {
    for (int& x : scratch) x = 1;
  });
  scanner.join();
  other.join();
}

}  // namespace

int main(int argc, char** argv) {
  const char* name = argc == 2 ? argv[1] : "";
  if (!std::strcmp(name, "message_passing")) message_passing();
  else if (!std::strcmp(name, "write_after_the_release_fence")) write_after_the_release_fence(false);
  else if (!std::strcmp(name, "write_after_the_release_fence_acquire_load")) write_after_the_release_fence(true);
  else if (!std::strcmp(name, "read_before_the_acquire_fence")) read_before_the_acquire_fence();
  else if (!std::strcmp(name, "release_sequence_through_a_relaxed_rmw")) release_sequence_through_a_relaxed_rmw();
  else if (!std::strcmp(name, "release_store_overwritten_before_the_acquire_fence"))
    release_store_overwritten_before_the_acquire_fence();
  else if (!std::strcmp(name, "completion_flag_reused_after_its_acquire")) completion_flag_reused_after_its_acquire();
  else if (!std::strcmp(name, "read_after_many_relaxed_loads_and_no_fence")) read_after_many_relaxed_loads(false);
  else if (!std::strcmp(name, "read_after_many_relaxed_loads_and_an_acquire_fence"))
    read_after_many_relaxed_loads(true);
  else if (!std::strcmp(name, "race_beside_a_fence_after_many_loads")) race_beside_a_fence_after_many_loads();
  else {
    std::fprintf(stderr, "fence_litmus: unknown case '%s'\n", name);
    return 2;
  }
}
