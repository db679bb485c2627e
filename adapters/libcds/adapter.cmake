# libcds (Concurrent Data Structures): <hazard_pointer> over cds::gc::HP and <rcu> over
# cds::urcu general_threaded. Debian: libcds-dev.
#
# Debian's LibCDSConfig.cmake is not used: it points at /usr/lib64 and injects
# "-std=c++11 -mcx16". The adapter finds the header and libcds.so directly.
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)
find_package(Threads REQUIRED)

find_path(SAFERECL_CDS_INCLUDE_DIR cds/gc/hp.h)
find_library(SAFERECL_CDS_LIBRARY cds)

# The per-thread hazard pointer count, fixed when libcds is initialized.
set(SAFERECL_LIBCDS_HAZARD_POINTERS 64 CACHE STRING
    "libcds adapter: hazard pointers per thread (cds::gc::HP's fixed array)")

if(NOT SAFERECL_CDS_INCLUDE_DIR)
  saferecl_adapter(NAME libcds UNAVAILABLE "header cds/gc/hp.h not found (Debian package libcds-dev)")
elseif(NOT SAFERECL_CDS_LIBRARY)
  saferecl_adapter(NAME libcds UNAVAILABLE "library libcds.so not found (Debian package libcds-dev)")
else()
  file(STRINGS ${SAFERECL_CDS_INCLUDE_DIR}/cds/version.h _cds_version
       REGEX "#define CDS_VERSION_STRING")
  string(REGEX REPLACE ".*\"([^\"]*)\".*" "\\1" _cds_version "${_cds_version}")
  # A check result is cached under its variable name: key it by the adapter header, so that
  # an edited adapter is checked again.
  file(MD5 ${CMAKE_CURRENT_LIST_DIR}/include/sut.hpp _key)
  string(SUBSTRING "${_key}" 0 8 _key)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_INCLUDES ${SAFERECL_CDS_INCLUDE_DIR} ${CMAKE_CURRENT_LIST_DIR}/include)
  set(CMAKE_REQUIRED_LIBRARIES ${SAFERECL_CDS_LIBRARY} Threads::Threads)
  set(CMAKE_REQUIRED_FLAGS "-std=c++20")
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles([[
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
]] SAFERECL_CDS_WORKS_${_key})
  cmake_pop_check_state()
  if(NOT SAFERECL_CDS_WORKS_${_key})
    saferecl_adapter(NAME libcds UNAVAILABLE
                     "libcds ${_cds_version} found but the adapter does not compile or link against it; see CMakeFiles/CMakeError.log")
  else()
    add_library(sut_libcds INTERFACE)
    target_include_directories(sut_libcds INTERFACE ${CMAKE_CURRENT_LIST_DIR}/include)
    target_include_directories(sut_libcds SYSTEM INTERFACE ${SAFERECL_CDS_INCLUDE_DIR})
    target_compile_definitions(sut_libcds INTERFACE
      SAFERECL_LIBCDS_HAZARD_POINTERS=${SAFERECL_LIBCDS_HAZARD_POINTERS})
    target_link_libraries(sut_libcds INTERFACE ${SAFERECL_CDS_LIBRARY} Threads::Threads)
    # TSan's exit-time sleep, shortened: see the file (one definition per test executable).
    target_sources(sut_libcds INTERFACE ${CMAKE_CURRENT_LIST_DIR}/tsan_options.cpp)
    saferecl_adapter(NAME libcds TARGET sut_libcds CAPABILITIES hazard-pointer rcu
                     VERSION "libcds ${_cds_version} (cds::gc::HP, cds::urcu general_threaded)"
                     LIMITS "${SAFERECL_LIBCDS_HAZARD_POINTERS} hazard pointers per thread (fixed array); a hazard_pointer must be destroyed on the thread that made it; no retire inside a read-side critical section")
  endif()
endif()
