// The configure-time probe of the ck adapter (cmake/SafereclAdapterKit.cmake): every
// mapped operation, compiled and linked like the battery.
#include <sut.hpp>
struct X : sut::hazard_pointer_obj_base<X> { X() = default; };
int main() {
  std::atomic<X*> src{new X()};
  sut::hazard_pointer h = sut::make_hazard_pointer();
  X* p = h.protect(src);
  h.reset_protection();
  src.store(nullptr);
  p->retire();
  sut::rcu_default_domain().lock();
  sut::rcu_default_domain().unlock();
  sut::rcu_retire(new int(1));
  sut::rcu_barrier();
  return 0;
}
