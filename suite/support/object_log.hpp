// Side tables for tracked objects: what happened to each object, kept outside the object.
//
// A test must never touch an object after retiring it (it may already be reclaimed), so
// everything a test wants to know about an object -- has its deleter run, how often, with
// which pointer -- lives here, indexed by the id the object received at construction. The
// log has static storage duration and is never destroyed: deleters may run after the test
// body has returned (hazard-pointer reclamation is lazy), even during process exit.
//
// The quarantine keeps reclaimed memory poisoned but mapped for a while, so that a reader
// that touches an object after its reclamation (the bug we hunt) reads the poison pattern
// instead of invoking undefined behaviour; only the oldest reclaimed objects are freed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace saferecl::test {

inline constexpr std::uint64_t kAlive = 0xA11CE5AFEA11CE5AULL;
inline constexpr std::uint64_t kPoison = 0xDEADBEEFDEADBEEFULL;

class object_log {
 public:
  using id_t = std::size_t;

  // A fresh id; every object enrolls once.
  id_t enroll() noexcept;

  // Records one run of the object's deleter and the pointer it received.
  void record_reclaim(id_t id, const void* received) noexcept;

  int reclaim_count(id_t id) const noexcept;
  bool reclaimed(id_t id) const noexcept { return reclaim_count(id) > 0; }
  const void* received_pointer(id_t id) const noexcept;

  std::size_t enrolled() const noexcept { return next_id_.load(std::memory_order_acquire); }
  std::size_t total_reclaims() const noexcept { return reclaims_.load(std::memory_order_acquire); }
  // Deleter runs beyond the first for the same object: must stay 0.
  std::size_t repeated_reclaims() const noexcept {
    return repeats_.load(std::memory_order_acquire);
  }

 private:
  struct entry {
    std::atomic<int> count{0};
    std::atomic<const void*> received{nullptr};
  };
  static constexpr std::size_t kChunkBits = 16;
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;
  static constexpr std::size_t kMaxChunks = 4096;  // 2^28 objects

  entry& at(id_t id) const noexcept;

  std::atomic<id_t> next_id_{0};
  std::atomic<std::size_t> reclaims_{0};
  std::atomic<std::size_t> repeats_{0};
  mutable std::atomic<entry*> chunks_[kMaxChunks] = {};
};

// The process-wide log.
object_log& objects();

// Takes ownership of reclaimed memory; frees it only once `capacity` newer objects have
// been buried (or at flush()). `destroy` frees the memory (it must not run a destructor
// again: the deleter already did).
class quarantine {
 public:
  using destroy_fn = void (*)(void*) noexcept;
  void bury(void* memory, destroy_fn destroy) noexcept;
  void flush() noexcept;  // frees everything buried so far
};
quarantine& graveyard();

}  // namespace saferecl::test
