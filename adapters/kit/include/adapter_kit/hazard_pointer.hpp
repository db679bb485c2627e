// adapter_kit/hazard_pointer.hpp -- <hazard_pointer>'s shapes over a library's slots
// ([saferecl.hp.holder], [saferecl.hp.base]). Included by adapter_kit.hpp; the policy,
// Library, is described there.
//
//   hazard_pointer<Library>               the holder: owns one Library::slot or none (empty);
//                                         moves leave the source empty, swap exchanges slots,
//                                         the destructor gives the slot back. try_protect and
//                                         protect are the standard's definitions over publish
//                                         and clear (protect: the library's own loop, when it
//                                         has one).
//   make_hazard_pointer<Library>()        a holder of a new slot
//   swap(a, b)                            found by ADL and by `using sut::swap`
//   hazard_pointer_obj_base<Library,T,D>  retire(d): the object and its deleter handed to the
//                                         library (deferral, in adapter_kit.hpp)
#pragma once

#include <atomic>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace saferecl_kit {

template <class Library>
class hazard_pointer;

template <class Library>
hazard_pointer<Library> make_hazard_pointer();

template <class Library>
class hazard_pointer {
  using slot = typename Library::slot;

 public:
  hazard_pointer() noexcept {}  // user-provided: `const hazard_pointer h;` is well-formed
  hazard_pointer(hazard_pointer&& other) noexcept : slot_(take(other)) {}
  hazard_pointer& operator=(hazard_pointer&& other) noexcept {
    if (this != &other) {
      release();
      slot_ = take(other);
    }
    return *this;
  }
  ~hazard_pointer() { release(); }

  bool empty() const noexcept { return Library::empty(slot_); }

  template <class T>
  T* protect(const std::atomic<T*>& src) noexcept {
    if constexpr (requires(slot& s) { Library::protect(s, src); }) {
      return Library::protect(slot_, src);
    } else {
      T* ptr = src.load(std::memory_order_relaxed);
      while (!try_protect(ptr, src)) {
      }
      return ptr;
    }
  }

  template <class T>
  bool try_protect(T*& ptr, const std::atomic<T*>& src) noexcept {
    T* old = ptr;
    reset_protection(old);
    ptr = src.load(std::memory_order_acquire);
    if (old != ptr) {
      reset_protection();
      return false;
    }
    return true;
  }

  template <class T>
  void reset_protection(const T* ptr) noexcept {
    if (ptr == nullptr)
      Library::clear(slot_);
    else
      Library::publish(slot_, const_cast<std::remove_const_t<T>*>(ptr));
  }

  void reset_protection(std::nullptr_t = nullptr) noexcept { Library::clear(slot_); }

  void swap(hazard_pointer& other) noexcept { std::swap(slot_, other.slot_); }

 private:
  friend hazard_pointer make_hazard_pointer<Library>();

  explicit hazard_pointer(slot&& s) noexcept : slot_(std::move(s)) {}

  static slot take(hazard_pointer& other) noexcept { return std::exchange(other.slot_, slot{}); }

  void release() noexcept {
    if (!Library::empty(slot_)) Library::release(slot_);
  }

  slot slot_{};
};

template <class Library>
hazard_pointer<Library> make_hazard_pointer() {
  return hazard_pointer<Library>(Library::make());
}

template <class Library>
void swap(hazard_pointer<Library>& a, hazard_pointer<Library>& b) noexcept {
  a.swap(b);
}

template <class Library, class T, class D>
class hazard_pointer_obj_base : public deferral<Library, T, D> {
 public:
  void retire(D d = D()) noexcept {
    this->saferecl_kit_defer(static_cast<T*>(this), std::move(d));
  }

 protected:
  hazard_pointer_obj_base() = default;
  hazard_pointer_obj_base(const hazard_pointer_obj_base&) = default;
  hazard_pointer_obj_base(hazard_pointer_obj_base&&) = default;
  hazard_pointer_obj_base& operator=(const hazard_pointer_obj_base&) = default;
  hazard_pointer_obj_base& operator=(hazard_pointer_obj_base&&) = default;
  ~hazard_pointer_obj_base() = default;
};

}  // namespace saferecl_kit
