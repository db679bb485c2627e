// Custody accounting: deleter objects that count their own lives.
//
// An implementation stores, moves, copies and destroys the deleters handed to it. A
// stateless or trivially destructible deleter hides every mistake in that bookkeeping; the
// deleters here do not. Each deleter object (made by any constructor: default, copy, move)
// takes a fresh serial number in the process-wide ledger, which records per serial how often
// it was destroyed and invoked:
//   destroyed twice        an object the library destroyed once too often (core)
//   invoked after death    a deleter invoked after it was destroyed (core)
//   alive()                constructed minus destroyed: 0 once every retired object has been
//                          reclaimed and the library holds no deleter any more (a lost
//                          destruction is a leak: qoi, since nothing says by when)
// Each invocation also records the object in the object log (objects(): reclaimed exactly
// once, with its own address) and deletes it.
//
// Two flavours:
//   counted_deleter  copyable and move-only-agnostic; holds only its serial
//   owning_deleter   move-only and owning a heap allocation of its own (a move allocates a
//                    fresh one), so that in the ASan tier a double destruction is a double
//                    free and a lost one a leak (LeakSanitizer), beside the counts every
//                    tier checks
// Both are default-constructible and move-assignable (assignment makes no new object), as
// [saferecl.hp.base]/1 and [saferecl.rcu.base]/4 require of the stored deleter.
//
// custody_set and check_custody_of_the_reclaimed() put the checks into a few words: the
// objects a test handed over, then, for those reclaimed so far, the core checks above.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "support/object_log.hpp"
#include "support/sanitizers.hpp"

namespace saferecl::test {

class custody_ledger {
 public:
  using serial_t = std::size_t;

  serial_t born() noexcept;                 // a deleter object was constructed
  bool died(serial_t serial) noexcept;      // ... destroyed; false: already was
  // ... invoked; `intact`: what it owns still reads as it should
  void invoked(serial_t serial, bool intact = true) noexcept;

  std::size_t constructed() const noexcept { return born_.load(std::memory_order_acquire); }
  std::size_t destroyed() const noexcept { return died_.load(std::memory_order_acquire); }
  std::size_t invocations() const noexcept { return invoked_.load(std::memory_order_acquire); }
  // Deleter objects not yet destroyed (negative after destructions of the dead).
  std::ptrdiff_t alive() const noexcept {
    return static_cast<std::ptrdiff_t>(constructed()) - static_cast<std::ptrdiff_t>(destroyed());
  }
  // Destructions of an object already destroyed (or never constructed): must stay 0.
  std::size_t destroyed_twice() const noexcept { return twice_.load(std::memory_order_acquire); }
  // Invocations of a deleter object already destroyed (or whose resource is): must stay 0.
  std::size_t invoked_after_death() const noexcept {
    return after_death_.load(std::memory_order_acquire);
  }

 private:
  static constexpr std::size_t kCapacity = std::size_t{1} << 20;  // serials per process
  std::atomic<std::uint8_t>& deaths(serial_t serial) noexcept;

  std::atomic<serial_t> born_{0};
  std::atomic<std::size_t> died_{0};
  std::atomic<std::size_t> invoked_{0};
  std::atomic<std::size_t> twice_{0};
  std::atomic<std::size_t> after_death_{0};
  std::atomic<std::uint8_t> deaths_[kCapacity] = {};
};

// The process-wide ledger (never destroyed: deleters may run during exit).
custody_ledger& custody();

// Records the reclamation of `p` (T derives from `tracked`) and deletes it.
template <class T>
void reclaim_by_delete(T* p) noexcept {
  objects().record_reclaim(p->id, p);
  delete p;
}

class counted_deleter {
 public:
  counted_deleter() noexcept : serial_(custody().born()) {}
  counted_deleter(const counted_deleter&) noexcept : serial_(custody().born()) {}
  counted_deleter(counted_deleter&&) noexcept : serial_(custody().born()) {}
  counted_deleter& operator=(const counted_deleter&) noexcept { return *this; }
  counted_deleter& operator=(counted_deleter&&) noexcept { return *this; }
  ~counted_deleter() { custody().died(serial_); }

  // Invoked with p, deletes p, which may destroy this very deleter (a stored one): nothing
  // of *this is touched after the delete.
  template <class T>
  void operator()(T* p) const noexcept {
    custody().invoked(serial_);  // before the log: check_custody_of_the_reclaimed relies on it
    reclaim_by_delete(p);
  }

 private:
  custody_ledger::serial_t serial_;
};

class owning_deleter {
 public:
  owning_deleter() : serial_(custody().born()), resource_(new std::uint64_t(kAlive)) {}
  owning_deleter(owning_deleter&& other)
      : serial_(custody().born()), resource_(new std::uint64_t(*other.resource_)) {}
  owning_deleter& operator=(owning_deleter&& other) noexcept {
    *resource_ = *other.resource_;
    return *this;
  }
  owning_deleter(const owning_deleter&) = delete;
  owning_deleter& operator=(const owning_deleter&) = delete;
  // A second destruction frees the resource again only where ASan reports the double
  // free at once; elsewhere the count alone tells it (a double free left to run corrupts
  // TSan's allocator: a test once grew to 20 GB).
  ~owning_deleter() {
    if (custody().died(serial_) || kUnderAsan) delete resource_;
  }

  template <class T>
  void operator()(T* p) const noexcept {
    custody().invoked(serial_, *resource_ == kAlive);  // freed: ASan's use-after-free
    reclaim_by_delete(p);
  }

 private:
  custody_ledger::serial_t serial_;
  std::uint64_t* resource_;
};

// Invocations of a tagged_deleter whose tag was not its object's: a deleter that was not
// the one handed to retire for that object (a default-constructed or stale one). Must stay 0.
inline std::atomic<std::size_t>& custody_wrong_tag() noexcept {
  static std::atomic<std::size_t> n{0};
  return n;
}

// An owning_deleter that also carries the tag of the object it was made for (T has a
// `tag` member): it tells its own state from a default-constructed deleter's (tag 0) or
// another object's.
struct tagged_deleter {
  owning_deleter owner;
  std::uint64_t tag = 0;

  tagged_deleter() = default;
  explicit tagged_deleter(std::uint64_t t) : tag(t) {}
  tagged_deleter(tagged_deleter&&) = default;
  tagged_deleter& operator=(tagged_deleter&&) = default;

  template <class T>
  void operator()(T* p) const noexcept {
    if (p == nullptr || p->tag != tag) custody_wrong_tag().fetch_add(1, std::memory_order_relaxed);
    owner(p);
  }
};

// The objects a test handed to the library, as it may know them once they are retired.
struct custody_set {
  template <class T>
  void add(const T* p) {
    ids.push_back(p->id);
    addresses.push_back(p);
  }
  std::size_t size() const noexcept { return ids.size(); }
  std::size_t reclaimed() const noexcept {
    std::size_t n = 0;
    for (object_log::id_t id : ids) n += objects().reclaimed(id) ? 1 : 0;
    return n;
  }

  std::vector<object_log::id_t> ids;
  std::vector<const void*> addresses;

  void merge(const custody_set& other) {
    ids.insert(ids.end(), other.ids.begin(), other.ids.end());
    addresses.insert(addresses.end(), other.addresses.begin(), other.addresses.end());
  }
};

// The core checks on the objects of `set` reclaimed so far (the only deleters counted in
// the process): each ran once with its own address, every invocation was of one of them,
// and no deleter object was destroyed twice or invoked after its destruction.
// They hold while another thread may still run deleters (hazard-pointer deleters may run
// on any thread, at any time): an invocation is counted before its object is logged as
// reclaimed, so invocations read after the log are at least the reclaimed count read
// before it, and at most the objects handed over.
inline void check_custody_of_the_reclaimed(const custody_set& set) {
  const std::size_t reclaimed = set.reclaimed();
  const std::size_t invoked = custody().invocations();
  INFO("reclaimed ", reclaimed, " of ", set.size(), "; deleter objects made ",
       custody().constructed(), ", destroyed ", custody().destroyed(), ", invoked ", invoked);
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (!objects().reclaimed(set.ids[i])) continue;
    CHECK(objects().reclaim_count(set.ids[i]) == 1);
    CHECK(objects().received_pointer(set.ids[i]) == set.addresses[i]);
  }
  CHECK(invoked >= reclaimed);
  CHECK(invoked <= set.size());
  CHECK(custody().destroyed_twice() == 0);
  CHECK(custody().invoked_after_death() == 0);
}

}  // namespace saferecl::test
