// adapter_kit/rcu.hpp -- <rcu>'s shapes over a library's regions and deferral
// ([saferecl.rcu.domain], [saferecl.rcu.base], [saferecl.rcu.domain.func]). Included by
// adapter_kit.hpp; the policy, Library, is described there.
//
//   rcu_domain<Library>               not copyable, no public constructor, Cpp17Lockable over
//                                     Library::enter/leave; one default domain
//   rcu_obj_base<Library,T,D>         retire(d): the object and its deleter handed to the
//                                     library (deferral, in adapter_kit.hpp)
//   rcu_retire<Library>(p, d)         the Mandates; a node {p, d1} (d1 move-initialized from
//                                     d) deferred to the library, which runs d1(p) and frees it
#pragma once

#include <type_traits>
#include <utility>

namespace saferecl_kit {

template <class Library>
class rcu_domain {
 public:
  rcu_domain(const rcu_domain&) = delete;
  rcu_domain& operator=(const rcu_domain&) = delete;

  void lock() noexcept { Library::enter(); }
  bool try_lock() noexcept {
    Library::enter();
    return true;
  }
  void unlock() noexcept { Library::leave(); }

  // What rcu_default_domain() returns.
  static rcu_domain& default_domain() noexcept {
    static constinit rcu_domain domain;
    return domain;
  }

 private:
  constexpr rcu_domain() noexcept = default;
};

template <class Library, class T, class D>
class rcu_obj_base : public deferral<Library, T, D> {
 public:
  void retire(D d = D(), rcu_domain<Library>& = rcu_domain<Library>::default_domain()) noexcept {
    this->saferecl_kit_defer(static_cast<T*>(this), std::move(d));
  }

 protected:
  rcu_obj_base() = default;
  rcu_obj_base(const rcu_obj_base&) = default;
  rcu_obj_base(rcu_obj_base&&) = default;
  rcu_obj_base& operator=(const rcu_obj_base&) = default;
  rcu_obj_base& operator=(rcu_obj_base&&) = default;
  ~rcu_obj_base() = default;
};

// rcu_retire's evaluation: its own Reclaim.
template <class Library, class T, class D>
struct retire_node : Library::template node<retire_node<Library, T, D>, retire_node<Library, T, D>> {
  retire_node(T* p, D&& d) : ptr(p), deleter(std::move(d)) {}
  T* ptr;
  D deleter;

  static void run(retire_node* node) noexcept {
    node->deleter(node->ptr);
    delete node;
  }
};

template <class Library, class T, class D>
void rcu_retire(T* p, D&& d) {  // d: rcu_retire's own parameter
  static_assert(std::is_move_constructible_v<D>, "rcu_retire: D must be move constructible");
  static_assert(std::is_invocable_v<D&, T*>, "rcu_retire: d(p) must be well-formed");
  if constexpr (requires { Library::prepare_retire(); }) Library::prepare_retire();
  using node = retire_node<Library, T, D>;
  Library::template defer<node>(new node(p, std::move(d)));  // bad_alloc, or d1's init, may throw
}

}  // namespace saferecl_kit
