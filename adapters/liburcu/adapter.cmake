# liburcu (userspace RCU), urcu-memb flavor: <rcu> only. Debian: liburcu-dev.
#
# Found by header and library (pkg-config gives the version when present). The read side
# is compiled inline (_LGPL_SOURCE, in sut.hpp); the rest links liburcu-memb and
# liburcu-common. tsan.supp next to this file is applied to this adapter's tests.
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)
find_package(Threads REQUIRED)

find_path(SAFERECL_URCU_INCLUDE_DIR urcu/urcu-memb.h
          PATH_SUFFIXES ${CMAKE_LIBRARY_ARCHITECTURE})
find_library(SAFERECL_URCU_MEMB_LIBRARY urcu-memb)
find_library(SAFERECL_URCU_COMMON_LIBRARY urcu-common)

set(_urcu_version "")
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(SAFERECL_URCU_PC QUIET liburcu-memb)
  if(SAFERECL_URCU_PC_FOUND)
    set(_urcu_version "${SAFERECL_URCU_PC_VERSION}")
  endif()
endif()

if(NOT SAFERECL_URCU_INCLUDE_DIR)
  saferecl_adapter(NAME liburcu UNAVAILABLE
                   "header urcu/urcu-memb.h not found (Debian package liburcu-dev)")
elseif(NOT SAFERECL_URCU_MEMB_LIBRARY OR NOT SAFERECL_URCU_COMMON_LIBRARY)
  saferecl_adapter(NAME liburcu UNAVAILABLE
                   "libraries urcu-memb / urcu-common not found (Debian package liburcu-dev)")
else()
  # A check result is cached under its variable name: key it by the adapter header, so that
  # an edited adapter is checked again.
  file(MD5 ${CMAKE_CURRENT_LIST_DIR}/include/sut.hpp _key)
  string(SUBSTRING "${_key}" 0 8 _key)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_INCLUDES ${SAFERECL_URCU_INCLUDE_DIR} ${CMAKE_CURRENT_LIST_DIR}/include)
  set(CMAKE_REQUIRED_LIBRARIES ${SAFERECL_URCU_MEMB_LIBRARY} ${SAFERECL_URCU_COMMON_LIBRARY} Threads::Threads)
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles([[
#include <sut.hpp>
int main() {
  sut::rcu_default_domain().lock();
  sut::rcu_default_domain().unlock();
  sut::rcu_retire(new int(1));
  sut::rcu_barrier();
  return 0;
}
]] SAFERECL_URCU_WORKS_${_key})
  cmake_pop_check_state()
  if(NOT SAFERECL_URCU_WORKS_${_key})
    saferecl_adapter(NAME liburcu UNAVAILABLE
                     "liburcu found (${SAFERECL_URCU_INCLUDE_DIR}) but the adapter does not compile or link against it; see CMakeFiles/CMakeError.log")
  else()
    add_library(sut_liburcu INTERFACE)
    target_include_directories(sut_liburcu INTERFACE ${CMAKE_CURRENT_LIST_DIR}/include)
    target_include_directories(sut_liburcu SYSTEM INTERFACE ${SAFERECL_URCU_INCLUDE_DIR})
    target_link_libraries(sut_liburcu INTERFACE
      ${SAFERECL_URCU_MEMB_LIBRARY} ${SAFERECL_URCU_COMMON_LIBRARY} Threads::Threads)
    if(NOT _urcu_version)
      set(_urcu_version "version unknown")
    endif()
    saferecl_adapter(NAME liburcu TARGET sut_liburcu CAPABILITIES rcu
                     VERSION "liburcu ${_urcu_version} (urcu-memb, inline read side)")
  endif()
endif()
