// <hazard_pointer>
//
// [saferecl.hp.general]/5: an object x is reclaimed by invoking its deleter with a pointer
//   to x (the complete T object, not the hazard_pointer_obj_base subobject).
// [saferecl.hp.holder.mem]/2, /9: protect and reset_protection take a T*.
//
// Relies on: churn being the only portable way to provoke reclamation. The layouts below
// put the hazard_pointer_obj_base subobject at a non-zero offset wherever it is not empty
// (as in every known implementation: it carries the retired-list link), so a pointer to it
// differs from the T*; protection must still hold and the deleter must receive the T*.
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

struct leading_data {
  std::array<long, 4> words{};
};

// The obj_base is the second base: its address is the T* plus sizeof(leading_data).
struct second_base : leading_data,
                     sut::hazard_pointer_obj_base<second_base, quarantine_deleter>,
                     tracked {
  second_base() = default;
};

// A polymorphic T: the vtable pointer comes first, and destruction is virtual.
struct polymorphic : sut::hazard_pointer_obj_base<polymorphic, quarantine_deleter>, tracked {
  polymorphic() = default;
  virtual ~polymorphic() = default;
  virtual int kind() const noexcept { return 1; }
};

// A protected object at each layout survives churn after its retire.
template <class T>
void check_protected_through_t_pointer() {
  std::atomic<T*> src{new T};
  sut::hazard_pointer h = sut::make_hazard_pointer();
  T* p = h.protect(src);
  src.store(nullptr);
  p->retire();
  churn();
  CHECK_FALSE(objects().reclaimed(p->id));
  CHECK(p->alive());
}

// The deleter of every reclaimed object received the T* that was retired.
template <class T>
void check_deleter_receives_t_pointer() {
  constexpr std::size_t kObjects = 64;
  std::array<object_log::id_t, kObjects> ids{};
  std::array<const void*, kObjects> addresses{};
  for (std::size_t i = 0; i < kObjects; ++i) {
    T* p = new T;
    ids[i] = p->id;
    addresses[i] = p;
    p->retire();
  }
  churn();
  for (std::size_t i = 0; i < kObjects; ++i)
    if (objects().reclaimed(ids[i])) CHECK(objects().received_pointer(ids[i]) == addresses[i]);
  WARN_MESSAGE(saferecl::test::reclaimed_among(ids) > 0,
               "nothing was reclaimed under churn: the check was vacuous");
}

}  // namespace

TEST_CASE("saferecl.hp.general/5 H5: the deleter receives the complete object when the base is not first" *
          doctest::test_suite("core.semantic")) {
  check_deleter_receives_t_pointer<second_base>();
}

TEST_CASE("saferecl.hp.general/5 H5: the deleter receives the complete object of a polymorphic T" *
          doctest::test_suite("core.semantic")) {
  check_deleter_receives_t_pointer<polymorphic>();
}

TEST_CASE("saferecl.hp.general/6 H7: protection through a T* holds when the base is not first" *
          doctest::test_suite("core.semantic")) {
  check_protected_through_t_pointer<second_base>();
}

TEST_CASE("saferecl.hp.general/6 H7: protection through a T* holds for a polymorphic T" *
          doctest::test_suite("core.semantic")) {
  check_protected_through_t_pointer<polymorphic>();
}
