// The configure-time probe of the liburcu adapter (cmake/SafereclAdapterKit.cmake): every
// mapped operation, compiled and linked like the battery.
#include <sut.hpp>
int main() {
  sut::rcu_default_domain().lock();
  sut::rcu_default_domain().unlock();
  sut::rcu_retire(new int(1));
  sut::rcu_barrier();
  return 0;
}
