// tiny_rcu.hpp -- "tinyrcu", the library of the adapter guide's worked example
// (adapters/README.md): a small epoch-based RCU with an API of its own, as a team's in-house
// library would have. Header-only; it knows nothing of saferecl.
//
//   read_lock / read_unlock   a read-side section of the calling thread (nestable). The
//                             outermost lock stamps the thread's record with the current epoch.
//   synchronize               advances the epoch and waits until no record holds an older stamp:
//                             every section that began before the call has ended; sections that
//                             began after it are not waited for.
//   call(cb, fn)              fn(cb) after a grace period; the callbacks run in barrier()
//   barrier                   runs every callback queued before the call, after a grace period,
//                             and returns once they, and those another barrier took first, ran
//
// Records live in a list that only grows; a thread takes a free one on first use and frees it
// at exit. Every access is a C++ atomic or under a std::mutex, so ThreadSanitizer sees it all.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>

#define TINY_RCU_VERSION "1.0"

namespace tiny_rcu {

struct record {
  std::atomic<std::uint64_t> stamp{0};  // 0: outside every section
  std::atomic<bool> taken{true};
  unsigned depth = 0;
  record* next = nullptr;
};

struct callback {
  void (*fn)(callback*) = nullptr;
  callback* next = nullptr;
};

inline std::atomic<std::uint64_t> epoch{1};
inline std::atomic<record*> records{nullptr};
inline std::mutex queue_mutex;
inline callback* queue = nullptr;
inline std::recursive_mutex barrier_mutex;  // a callback may call barrier()

inline record* take_record() {
  for (record* r = records.load(std::memory_order_acquire); r != nullptr; r = r->next)
    if (!r->taken.exchange(true, std::memory_order_acquire)) return r;
  auto* r = new record;
  r->next = records.load(std::memory_order_relaxed);
  while (!records.compare_exchange_weak(r->next, r, std::memory_order_release)) {
  }
  return r;
}

constinit inline thread_local record* mine = nullptr;
struct record_owner {
  ~record_owner() { std::exchange(mine, nullptr)->taken.store(false, std::memory_order_release); }
};

inline record& my_record() {
  if (mine == nullptr) {
    mine = take_record();
    static thread_local record_owner owner;  // gives the record back at thread exit
  }
  return *mine;
}

inline void read_lock() {
  record& r = my_record();
  if (r.depth++ == 0) {
    r.stamp.store(epoch.load(std::memory_order_seq_cst), std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the stamp before the reads
  }
}

inline void read_unlock() {
  record& r = *mine;
  if (--r.depth == 0) r.stamp.store(0, std::memory_order_release);
}

inline void synchronize() {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the updates before the scan
  const std::uint64_t now = epoch.fetch_add(1, std::memory_order_seq_cst) + 1;
  for (record* r = records.load(std::memory_order_acquire); r != nullptr; r = r->next) {
    for (std::uint64_t s = r->stamp.load(std::memory_order_acquire); s != 0 && s < now;
         s = r->stamp.load(std::memory_order_acquire))
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

inline void call(callback* cb, void (*fn)(callback*)) {
  cb->fn = fn;
  std::lock_guard lock(queue_mutex);
  cb->next = queue;
  queue = cb;
}

inline void barrier() {
  std::lock_guard serialize(barrier_mutex);
  callback* taken;
  {
    std::lock_guard lock(queue_mutex);
    taken = std::exchange(queue, nullptr);
  }
  synchronize();
  while (taken != nullptr) {
    callback* cb = taken;
    taken = cb->next;
    cb->fn(cb);
  }
}

}  // namespace tiny_rcu
