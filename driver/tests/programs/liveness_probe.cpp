// The liveness clock (suite/support/liveness.hpp) measured on one scene, for
// driver/tests/test_liveness_clock.py:
//   liveness_probe blocked SECONDS      the main thread sleeps (a blocked hang)
//   liveness_probe spin THREADS SECONDS that many threads spin (a livelock; starved if the
//                                       machine is busy)
// prints "wall=<s> could_run=<s> cpu=<s> waited=<s>" of the whole scene. The main thread
// watches as the watchdog does, reading the clock every 10 ms (a thread's times are read
// while it lives).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

#include "support/liveness.hpp"

int main(int argc, char** argv) {
  using namespace std::chrono;
  if (argc < 3) return 2;
  const std::string_view scene = argv[1];
  const bool blocked = scene == "blocked" && argc == 3, spin = scene == "spin" && argc == 4;
  if (!blocked && !spin) return 2;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int i = 0; spin && i < std::atoi(argv[2]); ++i)
    threads.emplace_back([&] { while (!stop.load(std::memory_order_relaxed)) {} });
  if (blocked)  // a thread asleep in the kernel, as in a hang; the main thread only watches
    threads.emplace_back([&] { stop.wait(false); });

  saferecl::test::liveness_clock clock;
  const auto start = clock.now();
  const auto end = steady_clock::now() + duration<double>(std::atof(argv[argc - 1]));
  while (steady_clock::now() < end) {
    std::this_thread::sleep_for(milliseconds(10));
    (void)clock.now();
  }
  std::this_thread::sleep_for(saferecl::test::liveness_clock::kResolution);
  const auto w = clock.now() - start;
  stop = true;
  stop.notify_all();
  for (auto& t : threads) t.join();
  std::printf("wall=%.3f could_run=%.3f cpu=%.3f waited=%.3f\n", w.wall, w.could_run, w.cpu, w.waited);
}
