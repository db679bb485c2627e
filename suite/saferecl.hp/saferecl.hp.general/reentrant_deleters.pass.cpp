// <hazard_pointer>
//
// [reentrancy]/1: whether library functions may be called from a deleter is
//   implementation-defined, so re-entrant deleters are quality of implementation (HS-13):
//   a deleter that retires another object, one that makes and uses hazard pointers, and
//   one that allocates a child, protects it and retires it while it is still protected --
//   which must then survive like any protected object.
//
// Relies on: churn being the only portable way to provoke reclamation; the watchdog turning a
// deadlock into a failure. Deleters may run on any thread, and nothing orders a
// hazard-pointer deleter before anything of the test's: what they write for the test thread
// is atomic, published by a release that the test thread acquires.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <span>
#include <vector>

using saferecl::test::churn;
using saferecl::test::churn_until;
using saferecl::test::hp_object;
using saferecl::test::object_log;
using saferecl::test::objects;
using saferecl::test::published;
using saferecl::test::quarantine_deleter;
using saferecl::test::reclaimed_among;
using saferecl::test::tracked;
using saferecl::test::within_watchdog;

namespace {

// --- a chain: each link's deleter retires the next link ---------------------------------

struct chain_link;
struct retire_next {
  void operator()(chain_link* p) const noexcept;
};
struct chain_link : sut::hazard_pointer_obj_base<chain_link, retire_next>, tracked {
  chain_link() = default;
  chain_link* next = nullptr;
};
void retire_next::operator()(chain_link* p) const noexcept {
  chain_link* next = p->next;
  quarantine_deleter{}(p);
  if (next != nullptr) next->retire();
}

// --- a deleter that makes, uses and destroys a hazard pointer ---------------------------

// Lives as long as any deleter that reads it might run.
published& shared_object() {
  static published shared(42);
  return shared;
}
std::atomic<std::size_t> g_reader_deleter_errors{0};

struct reading_object;
struct protect_and_read {
  void operator()(reading_object* p) const noexcept;
};
struct reading_object : sut::hazard_pointer_obj_base<reading_object, protect_and_read>, tracked {
  reading_object() = default;
};
void protect_and_read::operator()(reading_object* p) const noexcept {
  sut::hazard_pointer h = sut::make_hazard_pointer();
  const hp_object* shared = h.protect(shared_object().src);
  if (shared == nullptr || !shared->alive() || shared->value != 42) g_reader_deleter_errors.fetch_add(1, std::memory_order_relaxed);
  quarantine_deleter{}(p);
}

// --- a deleter that allocates a child, protects it and retires it while protected -------

constexpr std::size_t kGenerations = 8;

struct parent_object;
struct spawn_protected_child {
  void operator()(parent_object* p) const noexcept;
};
struct parent_object : sut::hazard_pointer_obj_base<parent_object, spawn_protected_child>, tracked {
  explicit parent_object(std::size_t g) : generation(g) {}
  std::size_t generation;
};

// Per generation: the child, once born, and the holder that keeps protecting it after its
// parent's deleter has returned. A deleter fills its generation's two slots and then
// publishes them by raising g_children_born (release); the test thread touches a slot only
// after it acquired a count that covers it. Fixed arrays: a deleter run late (during exit, by
// a thread of the library's) writes no storage that a destructor has freed.
std::array<sut::hazard_pointer, kGenerations> g_child_holders;
std::array<object_log::id_t, kGenerations> g_children{};  // [g]: the child of generation g
std::atomic<std::size_t> g_children_born{0};              // generations 1..n have a child

std::size_t children_born() noexcept { return g_children_born.load(std::memory_order_acquire); }

void spawn_protected_child::operator()(parent_object* p) const noexcept {
  const std::size_t child_generation = p->generation + 1;
  quarantine_deleter{}(p);
  if (child_generation == kGenerations) return;
  std::atomic<parent_object*> src{new parent_object(child_generation)};
  sut::hazard_pointer& h = g_child_holders[child_generation];
  h = sut::make_hazard_pointer();
  parent_object* child = h.protect(src);
  src.store(nullptr);
  g_children[child_generation] = child->id;
  g_children_born.store(child_generation, std::memory_order_release);
  child->retire();  // while protected: it must outlive this deleter, like any protected object
}

}  // namespace

TEST_CASE("saferecl.hp.base/7 H18: qoi: a deleter may retire another object: a chain of 64 is reclaimed link by link" *
          doctest::test_suite("qoi.semantic")) {
  constexpr std::size_t kLinks = 64;
  std::vector<object_log::id_t> ids;
  chain_link* head = nullptr;
  for (std::size_t i = 0; i < kLinks; ++i) {
    auto* link = new chain_link;
    link->next = head;
    head = link;
    ids.push_back(link->id);
  }
  head->retire();
  within_watchdog("reclaiming a chain whose deleters retire", [&] {
    CHECK(churn_until([&] { return reclaimed_among(ids) == kLinks; }));
  });
  CHECK(objects().repeated_reclaims() == 0);
}

TEST_CASE("saferecl.hp.base/7 H18: qoi: a deleter may make, use and destroy hazard pointers" *
          doctest::test_suite("qoi.semantic")) {
  constexpr std::size_t kObjects = 64;
  shared_object();  // created here, not inside a deleter
  std::vector<object_log::id_t> ids;
  for (std::size_t i = 0; i < kObjects; ++i) {
    auto* p = new reading_object;
    ids.push_back(p->id);
    p->retire();
  }
  within_watchdog("reclaiming objects whose deleters use hazard pointers", [&] {
    CHECK(churn_until([&] { return reclaimed_among(ids) == kObjects; }));
  });
  CHECK(g_reader_deleter_errors.load() == 0);
}

TEST_CASE("saferecl.hp.general/6 H7: qoi: a child that a deleter protects and retires survives until its holder lets go" *
          doctest::test_suite("qoi.semantic")) {
  (new parent_object(0))->retire();
  within_watchdog("generations of protected children", [&] {
    for (std::size_t generation = 1; generation < kGenerations; ++generation) {
      INFO("generation ", generation);
      REQUIRE(churn_until([&] { return children_born() == generation; }));
      churn();
      CHECK_FALSE(objects().reclaimed(g_children[generation]));  // retired while protected
      g_child_holders[generation] = sut::hazard_pointer{};  // lets the next generation be born
    }
    const std::span<const object_log::id_t> children(&g_children[1], kGenerations - 1);
    CHECK(churn_until([&] { return reclaimed_among(children) == children.size(); }));
  });
}
