// The configure-time probe of every adapter built with saferecl_library_adapter()
// (cmake/SafereclAdapterKit.cmake): each operation of the capabilities sut.hpp declares,
// compiled and linked like the battery (never run), so an adapter that cannot build in this
// tier is UNAVAILABLE with the reason instead of a hundred failed test builds.
#include <sut.hpp>

#if SUT_HAS_HAZARD_POINTER
struct hp_object : sut::hazard_pointer_obj_base<hp_object> {};

static void probe_hazard_pointers() {
  std::atomic<hp_object*> src{new hp_object()};
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(src);
  h.reset_protection();
  src.store(nullptr);
  p->retire();
}
#endif

#if SUT_HAS_RCU
struct rcu_object : sut::rcu_obj_base<rcu_object> {};

static void probe_rcu() {
  sut::rcu_default_domain().lock();
  sut::rcu_default_domain().unlock();
  (new rcu_object())->retire();
  sut::rcu_retire(new int(1));
  sut::rcu_synchronize();
  sut::rcu_barrier();
}
#endif

int main() {
#if SUT_HAS_HAZARD_POINTER
  probe_hazard_pointers();
#endif
#if SUT_HAS_RCU
  probe_rcu();
#endif
  return 0;
}
