# xenium (header-only): <hazard_pointer> over its hazard_pointer reclaimer, and the read
# side of <rcu> over epoch_based (no rcu_synchronize / rcu_barrier: tests that need them
# end NOT APPLICABLE). Debian: libxenium-dev.
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)
find_package(Threads REQUIRED)

find_path(SAFERECL_XENIUM_INCLUDE_DIR xenium/reclamation/hazard_pointer.hpp)

if(NOT SAFERECL_XENIUM_INCLUDE_DIR)
  saferecl_adapter(NAME xenium UNAVAILABLE
                   "header xenium/reclamation/hazard_pointer.hpp not found (Debian package libxenium-dev)")
else()
  # xenium has no version header; ask the package manager when there is one.
  set(_xenium_version "version unknown")
  find_program(SAFERECL_DPKG_QUERY dpkg-query)
  if(SAFERECL_DPKG_QUERY)
    execute_process(COMMAND ${SAFERECL_DPKG_QUERY} -W -f=\${Version} libxenium-dev
                    OUTPUT_VARIABLE _v RESULT_VARIABLE _rc ERROR_QUIET)
    if(_rc EQUAL 0 AND _v)
      set(_xenium_version "${_v}")
    endif()
  endif()
  # A check result is cached under its variable name: key it by the adapter header, so that
  # an edited adapter is checked again.
  file(MD5 ${CMAKE_CURRENT_LIST_DIR}/include/sut.hpp _key)
  string(SUBSTRING "${_key}" 0 8 _key)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_INCLUDES ${SAFERECL_XENIUM_INCLUDE_DIR} ${CMAKE_CURRENT_LIST_DIR}/include)
  set(CMAKE_REQUIRED_LIBRARIES Threads::Threads)
  set(CMAKE_REQUIRED_FLAGS "-std=c++20")
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles([[
#include <sut.hpp>
struct X : sut::hazard_pointer_obj_base<X> { X() = default; };
struct Y : sut::rcu_obj_base<Y> { Y() = default; };
int main() {
  std::atomic<X*> src{new X()};
  sut::hazard_pointer h = sut::make_hazard_pointer();
  X* p = h.protect(src);
  h.reset_protection();
  src.store(nullptr);
  p->retire();
  sut::rcu_default_domain().lock();
  (new Y())->retire();
  sut::rcu_default_domain().unlock();
  sut::rcu_retire(new int(1));
  return 0;
}
]] SAFERECL_XENIUM_WORKS_${_key})
  cmake_pop_check_state()
  if(NOT SAFERECL_XENIUM_WORKS_${_key})
    saferecl_adapter(NAME xenium UNAVAILABLE
                     "xenium found (${SAFERECL_XENIUM_INCLUDE_DIR}) but the adapter does not compile against it; see CMakeFiles/CMakeError.log")
  else()
    add_library(sut_xenium INTERFACE)
    target_include_directories(sut_xenium INTERFACE ${CMAKE_CURRENT_LIST_DIR}/include)
    target_include_directories(sut_xenium SYSTEM INTERFACE ${SAFERECL_XENIUM_INCLUDE_DIR})
    target_link_libraries(sut_xenium INTERFACE Threads::Threads)
    saferecl_adapter(NAME xenium TARGET sut_xenium CAPABILITIES hazard-pointer rcu
                     VERSION "xenium ${_xenium_version} (hazard_pointer with dynamic_strategy<8>, epoch_based)"
                     LIMITS "no rcu_synchronize / rcu_barrier (tests reaching them are NOT APPLICABLE); a hazard_pointer must be used and destroyed on the thread that made it")
  endif()
endif()
