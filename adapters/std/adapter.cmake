# The compiler's own standard library -- or any standard-library-style implementation that
# you point it at -- through <hazard_pointer> and <rcu> in namespace std.
#
#   SAFERECL_STD_INCLUDE_DIRS    extra include directories searched first (e.g. a libc++
#                                build tree's include/c++/v1, or a header-only implementation)
#   SAFERECL_STD_CXX_FLAGS       extra compile flags (e.g. -std=c++2c -stdlib=libc++)
#   SAFERECL_STD_LINK_LIBRARIES  extra libraries or link flags (e.g. -stdlib=libc++ -lc++abi)
#
# The headers are detected by their feature-test macros (__cpp_lib_hazard_pointer,
# __cpp_lib_rcu). With neither present the adapter is unavailable, and says why.
set(SAFERECL_STD_INCLUDE_DIRS "" CACHE STRING "std adapter: extra include directories")
set(SAFERECL_STD_CXX_FLAGS "" CACHE STRING "std adapter: extra compile flags")
set(SAFERECL_STD_LINK_LIBRARIES "" CACHE STRING "std adapter: extra link libraries/flags")

# The checks compile and link like the battery does (saferecl_adapter_probe: the tier's
# sanitizer flags), so that a vendor library built for that tier links. Their results are
# cached, keyed by these options and by the files they read from the options' include
# directories and libraries (paths and modification times): pointing the adapter at another
# implementation, or fixing a header or rebuilding a library, checks again.
function(_saferecl_std_inputs_stamp out)
  set(files)
  foreach(dir IN LISTS SAFERECL_STD_INCLUDE_DIRS)
    file(GLOB_RECURSE in_dir LIST_DIRECTORIES false "${dir}/*")
    list(APPEND files ${in_dir})
  endforeach()
  foreach(item IN LISTS SAFERECL_STD_LINK_LIBRARIES)
    if(EXISTS "${item}" AND NOT IS_DIRECTORY "${item}")
      list(APPEND files "${item}")
    endif()
  endforeach()
  set(stamp "")
  foreach(file IN LISTS files)
    file(TIMESTAMP "${file}" modified "%s")
    string(APPEND stamp "${file}@${modified};")
  endforeach()
  string(MD5 stamp "${stamp}")
  set(${out} ${stamp} PARENT_SCOPE)
endfunction()
_saferecl_std_inputs_stamp(_std_inputs)
separate_arguments(_std_flags UNIX_COMMAND "${SAFERECL_STD_CXX_FLAGS}")
set(_std_probe INCLUDES ${SAFERECL_STD_INCLUDE_DIRS} LIBRARIES ${SAFERECL_STD_LINK_LIBRARIES}
               FLAGS ${_std_flags} KEY ${_std_inputs})
saferecl_adapter_probe(_std_has_hp ${_std_probe} SOURCE [[
#include <version>
#if !defined(__cpp_lib_hazard_pointer) || __cpp_lib_hazard_pointer < 202306L
#error no hazard pointers
#endif
#include <hazard_pointer>
int main() { std::hazard_pointer h = std::make_hazard_pointer(); return h.empty() ? 1 : 0; }
]])
saferecl_adapter_probe(_std_has_hp_batch ${_std_probe} SOURCE [[
#include <version>
#if !defined(__cpp_lib_hazard_pointer) || __cpp_lib_hazard_pointer < 202606L
#error no hazard pointer batches
#endif
#include <hazard_pointer>
int main() { return 0; }
]])
saferecl_adapter_probe(_std_has_rcu ${_std_probe} SOURCE [[
#include <version>
#if !defined(__cpp_lib_rcu) || __cpp_lib_rcu < 202306L
#error no rcu
#endif
#include <rcu>
int main() { std::rcu_synchronize(); return 0; }
]])

# The pieces a header may lack while the rest of it works (vendors ship these headers piece by
# piece): the harness builds without them, and only the tests that use one are NOT BUILT.
saferecl_adapter_probe(_std_has_rcu_obj_base ${_std_probe} SOURCE [[
#include <rcu>
struct node : std::rcu_obj_base<node> {};
int main() { return 0; }
]])

# Why one header is not usable, as the first of its checks that fails: the header is not on
# the include path; it is, but <version> does not announce it in this standard mode (libc++
# declares these facilities only in C++26 mode); or it is announced but a program using it
# does not compile or link.
function(_saferecl_std_header_problem out header macro works)
  saferecl_adapter_probe(found ${_std_probe} SOURCE "
#if !__has_include(<${header}>)
#error not found
#endif
int main() { return 0; }
")
  saferecl_adapter_probe(announced ${_std_probe} SOURCE "
#include <version>
#if __has_include(<${header}>)
#include <${header}>
#endif
#if !defined(${macro}) || ${macro} < 202306L
#error not announced
#endif
int main() { return 0; }
")
  if(NOT found)
    set(problem "<${header}> not found")
  elseif(NOT announced)
    set(problem "<${header}> found but ${macro} undefined (or older than 202306L) in C++${SAFERECL_CXX_STANDARD} mode")
    if(SAFERECL_CXX_STANDARD LESS 26)
      string(APPEND problem ": try --std c++26")
    endif()
  elseif(NOT works)
    set(problem "${macro} is defined but a program using <${header}> does not compile or link (CMakeFiles/CMakeError.log has the compiler's output)")
  endif()
  set(${out} "${problem}" PARENT_SCOPE)
endfunction()

# The adapter's unavailability: each header's problem, and the command line of the checks.
function(_saferecl_std_unavailable_reason out)
  _saferecl_std_header_problem(hp hazard_pointer __cpp_lib_hazard_pointer "${_std_has_hp}")
  _saferecl_std_header_problem(rcu rcu __cpp_lib_rcu "${_std_has_rcu}")
  saferecl_probe_compile_flags(compile_flags ${_std_flags})
  saferecl_probe_link_flags(link_flags)
  # One command line compiles and links: the sanitizer's flags, which both steps take, once.
  if(SAFERECL_SANITIZER_FLAGS)
    list(REMOVE_ITEM link_flags ${SAFERECL_SANITIZER_FLAGS})
  endif()
  list(TRANSFORM SAFERECL_STD_INCLUDE_DIRS PREPEND -I OUTPUT_VARIABLE includes)
  string(REPLACE ";" " " command
         "${CMAKE_CXX_COMPILER};${compile_flags};${includes};${link_flags};${SAFERECL_STD_LINK_LIBRARIES}")
  string(STRIP "${command}" command)
  set(${out} "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}: ${hp}; ${rcu} (checked with: ${command})" PARENT_SCOPE)
endfunction()

set(_std_caps native-api)
set(_std_defs)
if(_std_has_hp)
  list(APPEND _std_caps hazard-pointer)
  list(APPEND _std_defs SAFERECL_STD_HAS_HAZARD_POINTER=1)
  if(_std_has_hp_batch)
    list(APPEND _std_caps hp-batch)
    list(APPEND _std_defs SAFERECL_STD_HAS_HP_BATCH=1)
  endif()
endif()
if(_std_has_rcu)
  list(APPEND _std_caps rcu)
  list(APPEND _std_defs SAFERECL_STD_HAS_RCU=1)
  if(NOT _std_has_rcu_obj_base)
    list(APPEND _std_defs SUT_HAS_RCU_OBJ_BASE=0)
  endif()
endif()

if(_std_defs)
  add_library(sut_std INTERFACE)
  target_include_directories(sut_std BEFORE INTERFACE ${SAFERECL_STD_INCLUDE_DIRS})
  target_include_directories(sut_std INTERFACE ${CMAKE_CURRENT_LIST_DIR}/include)
  target_compile_definitions(sut_std INTERFACE ${_std_defs})
  target_compile_options(sut_std INTERFACE ${_std_flags})
  target_link_libraries(sut_std INTERFACE ${SAFERECL_STD_LINK_LIBRARIES})
  set(_std_where "compiler's standard library")
  if(SAFERECL_STD_INCLUDE_DIRS)
    set(_std_where "${SAFERECL_STD_INCLUDE_DIRS}")
  endif()
  saferecl_adapter(NAME std TARGET sut_std CAPABILITIES ${_std_caps}
                   VERSION "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}; ${_std_where}")
else()
  _saferecl_std_unavailable_reason(_std_reason)
  saferecl_adapter(NAME std UNAVAILABLE "${_std_reason}")
endif()
