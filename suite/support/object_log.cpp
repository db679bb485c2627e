#include "support/object_log.hpp"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <utility>

namespace saferecl::test {

object_log::entry& object_log::at(id_t id) const noexcept {
  const std::size_t chunk = id >> kChunkBits;
  if (chunk >= kMaxChunks) {
    std::fprintf(stderr, "[saferecl] object_log: more than %zu tracked objects\n",
                 kMaxChunks * kChunkSize);
    std::abort();
  }
  entry* block = chunks_[chunk].load(std::memory_order_acquire);
  if (block == nullptr) {
    entry* fresh = new entry[kChunkSize];
    if (chunks_[chunk].compare_exchange_strong(block, fresh, std::memory_order_acq_rel))
      block = fresh;
    else
      delete[] fresh;
  }
  return block[id & (kChunkSize - 1)];
}

object_log::id_t object_log::enroll() noexcept {
  id_t id = next_id_.fetch_add(1, std::memory_order_acq_rel);
  (void)at(id);         // allocate the chunk now, not inside a deleter
  (void)graveyard();    // and the quarantine (fault tests fail every allocation of deleters)
  return id;
}

void object_log::record_reclaim(id_t id, const void* received) noexcept {
  entry& e = at(id);
  e.received.store(received, std::memory_order_release);
  if (e.count.fetch_add(1, std::memory_order_acq_rel) != 0)
    repeats_.fetch_add(1, std::memory_order_acq_rel);
  reclaims_.fetch_add(1, std::memory_order_acq_rel);
}

int object_log::reclaim_count(id_t id) const noexcept {
  return at(id).count.load(std::memory_order_acquire);
}

const void* object_log::received_pointer(id_t id) const noexcept {
  return at(id).received.load(std::memory_order_acquire);
}

object_log& objects() {
  static object_log* log = new object_log;  // never destroyed: deleters may run at exit
  return *log;
}

namespace {

// A ring of the most recently buried objects; burying into a full ring frees the oldest.
// Fixed storage, so a deleter never allocates (fault-injection tests arm operator new).
constexpr std::size_t kQuarantineCapacity = 1 << 16;

struct burial {
  void* memory = nullptr;
  quarantine::destroy_fn destroy = nullptr;
};

struct graveyard_state {
  std::mutex mutex;
  burial ring[kQuarantineCapacity];
  std::size_t next = 0;
};

graveyard_state& state();

graveyard_state* make_state() {
  auto* s = new graveyard_state;  // never destroyed, like the log
  // Fork-safe: a child forked while another thread buries an object would otherwise
  // inherit a locked mutex and hang in its first deleter (the fork tests fork while other
  // threads reclaim).
  (void)::pthread_atfork([] { state().mutex.lock(); }, [] { state().mutex.unlock(); },
                         [] { state().mutex.unlock(); });
  return s;
}

graveyard_state& state() {
  static graveyard_state* s = make_state();
  return *s;
}

}  // namespace

void quarantine::bury(void* memory, destroy_fn destroy) noexcept {
  burial evicted;
  {
    std::lock_guard lock(state().mutex);
    burial& slot = state().ring[state().next++ % kQuarantineCapacity];
    evicted = std::exchange(slot, burial{memory, destroy});
  }
  if (evicted.memory != nullptr) evicted.destroy(evicted.memory);
}

void quarantine::flush() noexcept {
  for (std::size_t i = 0; i < kQuarantineCapacity; ++i) {
    burial evicted;
    {
      std::lock_guard lock(state().mutex);
      evicted = std::exchange(state().ring[i], burial{});
    }
    if (evicted.memory != nullptr) evicted.destroy(evicted.memory);
  }
}

quarantine& graveyard() {
  static quarantine q;
  (void)state();  // allocate the ring before any deleter needs it
  return q;
}

}  // namespace saferecl::test
