// <hazard_pointer>
//
// template<class T, class D = default_delete<T>>
// void hazard_pointer_obj_base<T, D>::retire(D d = D()) noexcept;
//   Effects: move-assigns d to deleter, thereby setting it as the deleter of x, then
//   retires x. May reclaim possibly-reclaimable objects.
//   ([saferecl.hp.general]/5: reclaiming x invokes its deleter with a pointer to x.)
//
// Relies on: churn being the only portable way to provoke reclamation. Which objects are
// reclaimed is unspecified, so every check is made on each object that *was* reclaimed;
// a run that reclaims nothing is reported as a warning (the qoi tier flags it).
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <array>
#include <atomic>
#include <cstddef>

using saferecl::test::churn;
using saferecl::test::object_log;
using saferecl::test::objects;
using saferecl::test::quarantine_deleter;
using saferecl::test::tracked;

namespace {

constexpr std::size_t kObjects = 64;

// What a deleter saw when it ran, per object (tests index objects 0..kObjects-1).
struct deleter_report {
  std::atomic<int> tag{-1};
  std::atomic<bool> moved_in{false};
};
std::array<deleter_report, kObjects> g_seen;

// A stateful, move-only deleter: default-constructible and move-assignable, as
// [saferecl.hp.base]/1 requires, and not copyable, which it does not require.
class tagged_deleter {
 public:
  tagged_deleter() = default;
  explicit tagged_deleter(int tag) noexcept : tag_(tag) {}
  tagged_deleter(tagged_deleter&&) noexcept = default;
  tagged_deleter& operator=(tagged_deleter&& other) noexcept {
    tag_ = other.tag_;
    moved_in_ = true;
    return *this;
  }
  tagged_deleter(const tagged_deleter&) = delete;
  tagged_deleter& operator=(const tagged_deleter&) = delete;

  template <class T>
  void operator()(T* p) const noexcept {
    g_seen[p->index].tag.store(tag_, std::memory_order_relaxed);
    g_seen[p->index].moved_in.store(moved_in_, std::memory_order_relaxed);
    quarantine_deleter{}(p);
  }

 private:
  int tag_ = 0;  // 0: default-constructed and never assigned
  bool moved_in_ = false;
};

struct tagged_object : sut::hazard_pointer_obj_base<tagged_object, tagged_deleter>, tracked {
  explicit tagged_object(std::size_t i) : index(i) {}
  std::size_t index;
};

int tag_of(std::size_t i) { return static_cast<int>(i) + 1; }

// Retires kObjects objects of type T (constructed from their index) through `retire`,
// churns, and returns the ids and the addresses of the retired objects.
struct retired_batch {
  std::array<object_log::id_t, kObjects> ids{};
  std::array<const void*, kObjects> addresses{};
  std::size_t reclaimed() const { return saferecl::test::reclaimed_among(ids); }
};

template <class T, class Retire>
retired_batch retire_batch_and_churn(Retire retire) {
  retired_batch batch;
  for (std::size_t i = 0; i < kObjects; ++i) {
    T* p = new T(i);
    batch.ids[i] = p->id;
    batch.addresses[i] = p;
    retire(p, i);
  }
  churn();
  return batch;
}

void warn_if_vacuous(const retired_batch& batch) {
  WARN_MESSAGE(batch.reclaimed() > 0, "nothing was reclaimed under churn: the checks were vacuous");
}

// Default deleter: reclamation is `delete p`, seen through the destructor. The obj_base
// comes second, so deleting through any other pointer than the T* shows.
struct default_deleted : tracked, sut::hazard_pointer_obj_base<default_deleted> {
  explicit default_deleted(std::size_t) {}
  ~default_deleted() { objects().record_reclaim(id, this); }
};

// A function-pointer deleter: D() is a null pointer, so every retire passes one.
struct fn_deleted : sut::hazard_pointer_obj_base<fn_deleted, void (*)(fn_deleted*) noexcept>,
                    tracked {
  explicit fn_deleted(std::size_t) {}
};
void delete_fn_deleted(fn_deleted* p) noexcept { quarantine_deleter{}(p); }

}  // namespace

TEST_CASE("saferecl.hp.base/7 H18: with the default deleter a reclaimed object is deleted" *
          doctest::test_suite("core.semantic")) {
  retired_batch batch =
      retire_batch_and_churn<default_deleted>([](default_deleted* p, std::size_t) { p->retire(); });
  for (std::size_t i = 0; i < kObjects; ++i) {
    if (!objects().reclaimed(batch.ids[i])) continue;
    CHECK(objects().reclaim_count(batch.ids[i]) == 1);
    CHECK(objects().received_pointer(batch.ids[i]) == batch.addresses[i]);
  }
  warn_if_vacuous(batch);
}

TEST_CASE("saferecl.hp.base/7 H14: the deleter passed to retire is the one invoked, with its state" *
          doctest::test_suite("core.semantic")) {
  retired_batch batch = retire_batch_and_churn<tagged_object>(
      [](tagged_object* p, std::size_t i) { p->retire(tagged_deleter(tag_of(i))); });
  for (std::size_t i = 0; i < kObjects; ++i) {
    if (!objects().reclaimed(batch.ids[i])) continue;
    CHECK(g_seen[i].tag.load() == tag_of(i));
    CHECK(objects().received_pointer(batch.ids[i]) == batch.addresses[i]);
  }
  warn_if_vacuous(batch);
}

TEST_CASE("saferecl.hp.base/7 H18: retire move-assigns the deleter into the object" *
          doctest::test_suite("strict.semantic")) {
  retired_batch batch = retire_batch_and_churn<tagged_object>(
      [](tagged_object* p, std::size_t i) { p->retire(tagged_deleter(tag_of(i))); });
  for (std::size_t i = 0; i < kObjects; ++i)
    if (objects().reclaimed(batch.ids[i])) CHECK(g_seen[i].moved_in.load());
  warn_if_vacuous(batch);
}

TEST_CASE("saferecl.hp.base/1 H14: a function pointer works as the deleter" *
          doctest::test_suite("core.semantic")) {
  retired_batch batch = retire_batch_and_churn<fn_deleted>(
      [](fn_deleted* p, std::size_t) { p->retire(&delete_fn_deleted); });
  for (std::size_t i = 0; i < kObjects; ++i) {
    if (!objects().reclaimed(batch.ids[i])) continue;
    CHECK(objects().reclaim_count(batch.ids[i]) == 1);
    CHECK(objects().received_pointer(batch.ids[i]) == batch.addresses[i]);
  }
  warn_if_vacuous(batch);
}
