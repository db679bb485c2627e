// saferecl/detail/hazard_traits.hpp -- the "hazard-protectable" Mandate as a boolean.
//
// [saferecl.hp.general]/2: T is hazard-protectable if it has exactly one base class of type
// hazard_pointer_obj_base<T, D> for some D, that base is public and not virtual, and T
// has no base of type hazard_pointer_obj_base<T2, D2> for any other T2, D2.
//
// The check is a trait consumed by static_assert inside function bodies; it never
// constrains an overload (Mandates are not Constraints). It relies on two public member
// typedefs every hazard_pointer_obj_base<T, D> declares, looked up *through T* from this
// namespace, so access and ambiguity are those seen by an unrelated context:
//   saferecl_hp_base_type_    the base itself;      saferecl_hp_object_type_   its T.
// - not a class                           -> rejected (is_class)
// - no base at all                        -> the typedef is not found
// - base private or protected             -> the typedef is inaccessible here
// - two bases with different T2/D2        -> the typedef lookup is ambiguous
// - the same base reached via two paths   -> T* -> base* is ambiguous
// - base is virtual                       -> static_cast<T*>(base*) is ill-formed
// - T derived from a protectable class    -> the base's object type is not T
// - any extra hazard base (belt and braces) -> T* -> hazard_retired_node* is ambiguous
#pragma once

#include <type_traits>

#include "saferecl/detail/hazard_domain.hpp"

namespace saferecl::detail {

template <class T>
constexpr bool hazard_protectable_impl() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (!std::is_class_v<U>) {
    return false;
  } else if constexpr (!requires { typename U::saferecl_hp_base_type_; }) {
    return false;
  } else {
    using B = typename U::saferecl_hp_base_type_;
    if constexpr (!std::is_same_v<typename B::saferecl_hp_object_type_, U>)
      return false;
    else if constexpr (!std::is_convertible_v<U*, B*>)
      return false;
    else if constexpr (!requires(B* b) { static_cast<U*>(b); })
      return false;
    else
      return std::is_convertible_v<U*, hazard_retired_node*>;
  }
}

template <class T>
inline constexpr bool hazard_protectable_v = hazard_protectable_impl<T>();

// For retire(): T protectable, and through this very base.
template <class T, class Base>
constexpr bool hazard_retirable_impl() noexcept {
  if constexpr (!hazard_protectable_v<T>)
    return false;
  else
    return std::is_same_v<typename T::saferecl_hp_base_type_, Base>;
}

}  // namespace saferecl::detail

#define SAFERECL_HP_MANDATE_MESSAGE                                                       \
  "T is not hazard-protectable: it needs exactly one public, non-virtual base "          \
  "hazard_pointer_obj_base<T, D>"
