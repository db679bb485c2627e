# Build rules of the battery.
#
# Sources (paths relative to suite/):
#   <area>/**/*.pass.cpp          doctest TEST_CASEs; linked into one executable per
#                                 implementation and group, each TEST_CASE its own CTest test
#   <area>/**/*.compile.pass.cpp  API-shape checks (static_asserts in TEST_CASEs of kind api);
#                                 built like .pass.cpp, but only for native-api adapters
#   <area>/**/*.fault.pass.cpp    the same, in a separate executable that replaces operator new
#   <area>/**/*.compile.fail.cpp  must be ill-formed: one CTest test that compiles the file
#                                 twice, once as is (must fail) and once with
#                                 SAFERECL_MUST_NOT_COMPILE undefined (the positive twin,
#                                 must compile)
# where <area> is saferecl.hp (group hp), saferecl.rcu (group rcu) or stress (group stress).
#
# Directives, in the first comment lines of a source (read by index_tests.py only, which
# writes the test index and the battery.cmake fragment this file includes):
#   // REQUIRES: <capability>[, <capability>...]   hazard-pointer rcu hp-batch native-api
#   // TEST: <name>          (compile-fail files) the test's name, stable name first
#   // TIER: <tier>          (compile-fail files) core (default), strict, qoi or cxx29
#   // FIRST-INCLUDE: <header>  the source checks <header> on its own before including
#                            anything else, so the precompiled header is not forced into it
# saferecl.hp implies hazard-pointer, saferecl.rcu implies rcu, .compile.pass.cpp and
# .compile.fail.cpp imply native-api. A source whose requirements the adapter lacks is recorded as not applicable.
#
# Sources that fail to compile for an implementation are reported by the driver and left
# out on a second build (SAFERECL_EXCLUDED_SOURCES), so the rest of the battery still runs.
# When some of a source's cases compile on their own and others do not, only those are left
# out ("<impl>|<source>@<line of the TEST_CASE>"): the executable is built from a copy of the
# source without them (<build>/suite/pruned/<impl>/<source>, written by index_tests.py).

set(SAFERECL_TEST_TIMEOUT 300 CACHE STRING
    "CTest TIMEOUT in seconds of one test case (stress tests get three times as much)")
set(SAFERECL_SOURCES "" CACHE STRING
    "Regular expression: build only the suite sources (relative to suite/) it matches; empty: all")
# Every battery source starts with support/test.hpp (doctest, <sut.hpp>, the harness), whose
# parse is about two thirds of a TU's compile time under -O1 -fsanitize=thread; each
# executable precompiles it once. Off: the driver's fallback when the header itself does
# not compile, so that each source gets its own compiler message (NOT BUILT).
option(SAFERECL_PRECOMPILED_HEADER "Precompile support/test.hpp once per battery executable" ON)
set(SAFERECL_EXCLUDED_SOURCES "" CACHE STRING
    "<impl>|<suite-relative source>[@<line>] entries left out because they do not compile (set by ./conformance)")

set(SAFERECL_SUITE_DIR ${CMAKE_CURRENT_LIST_DIR}/..)
get_filename_component(SAFERECL_SUITE_DIR ${SAFERECL_SUITE_DIR} ABSOLUTE)
find_package(Python3 3.9 REQUIRED COMPONENTS Interpreter)

# Indexes the battery's sources for every available implementation (index_tests.py, the only
# reader of the directives and TEST_CASE names) and defines what the index says to build:
# <build>/saferecl/index.json for the driver and the reports, battery.cmake for CMake.
function(saferecl_add_batteries)
  file(GLOB_RECURSE sources RELATIVE ${SAFERECL_SUITE_DIR} CONFIGURE_DEPENDS
       ${SAFERECL_SUITE_DIR}/saferecl.*/*.cpp ${SAFERECL_SUITE_DIR}/stress/*.cpp)
  if(SAFERECL_SOURCES)
    list(FILTER sources INCLUDE REGEX "${SAFERECL_SOURCES}")
  endif()
  list(SORT sources)
  set(out ${CMAKE_BINARY_DIR}/saferecl)
  string(REPLACE ";" "\n" source_lines "${sources}")
  file(WRITE ${out}/sources.txt "${source_lines}\n")
  set(impl_args)
  foreach(impl IN LISTS SAFERECL_AVAILABLE_IMPLEMENTATIONS)
    get_property(caps GLOBAL PROPERTY SAFERECL_ADAPTER_${impl}_CAPABILITIES)
    string(REPLACE ";" "," caps "${caps}")
    list(APPEND impl_args "--implementation=${impl}=${caps}")
  endforeach()
  string(REPLACE ";" "," known "${SAFERECL_KNOWN_CAPABILITIES}")
  string(REPLACE ";" "," excluded "${SAFERECL_EXCLUDED_SOURCES}")
  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${SAFERECL_SUITE_DIR}/cmake/index_tests.py
            --suite-dir ${SAFERECL_SUITE_DIR} --sources ${out}/sources.txt --out-dir ${out}
            --known-capabilities ${known} --test-timeout ${SAFERECL_TEST_TIMEOUT}
            "--excluded=${excluded}" --pruned-dir ${CMAKE_CURRENT_BINARY_DIR}/pruned
            ${impl_args}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "indexing the battery's sources failed (index_tests.py, message above)")
  endif()
  include(${out}/battery.cmake)
endfunction()

# One battery executable: the .pass.cpp sources of one implementation and group.
function(saferecl_add_battery_executable impl group)
  get_property(sut_target GLOBAL PROPERTY SAFERECL_ADAPTER_${impl}_TARGET)
  get_property(caps GLOBAL PROPERTY SAFERECL_ADAPTER_${impl}_CAPABILITIES)
  set(exe ${impl}.${group})
  add_executable(${exe} ${ARGN}
    ${SAFERECL_SUITE_DIR}/support/capabilities.cpp
    ${SAFERECL_SUITE_DIR}/support/tracked.cpp
    $<TARGET_OBJECTS:saferecl_test_support>)
  target_link_libraries(${exe} PRIVATE ${sut_target} saferecl_test_support)
  if(group MATCHES "-fault$")
    target_sources(${exe} PRIVATE $<TARGET_OBJECTS:saferecl_fault_injection>)
    if(SAFERECL_SANITIZER MATCHES "^(tsan|asan)$")  # see support/fault_injection.cpp
      target_link_options(${exe} PRIVATE LINKER:--wrap=_Znwm LINKER:--wrap=_Znam
                          LINKER:--wrap=_ZnwmSt11align_val_t LINKER:--wrap=_ZnamSt11align_val_t)
    endif()
  endif()
  foreach(cap IN ITEMS hazard-pointer rcu hp-batch native-api)
    string(TOUPPER "${cap}" macro)
    string(REPLACE "-" "_" macro "${macro}")
    if(cap IN_LIST caps)
      target_compile_definitions(${exe} PRIVATE SAFERECL_DECLARED_${macro}=1)
    else()
      target_compile_definitions(${exe} PRIVATE SAFERECL_DECLARED_${macro}=0)
    endif()
  endforeach()
  target_compile_options(${exe} PRIVATE -Wall -Wextra)
  if(SAFERECL_PRECOMPILED_HEADER)
    target_precompile_headers(${exe} PRIVATE ${SAFERECL_SUITE_DIR}/support/test.hpp)
    if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")  # so that ccache may serve it (its manual)
      target_compile_options(${exe} PRIVATE "SHELL:-Xclang -fno-pch-timestamp")
    endif()
  endif()

  # Tests are discovered when CTest starts (not at build time), so an executable that
  # crashes while listing its tests cannot break the build.
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${exe}.discover.cmake)
  file(GENERATE OUTPUT ${include_file} CONTENT
"set(SAFERECL_DISCOVER_EXE [==[$<TARGET_FILE:${exe}>]==])
set(SAFERECL_DISCOVER_IMPL ${impl})
set(SAFERECL_DISCOVER_GROUP ${group})
set(SAFERECL_DISCOVER_TIMEOUT ${SAFERECL_TEST_TIMEOUT})
set(SAFERECL_DISCOVER_SUITE_DIR [==[${SAFERECL_SUITE_DIR}]==])
set(SAFERECL_DISCOVER_INDEX_CASES [==[${CMAKE_BINARY_DIR}/saferecl/cases/${exe}.txt]==])
include([==[${SAFERECL_SUITE_DIR}/cmake/discover_tests.cmake]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()

# One CTest test per compile-fail source and implementation; name and tier from the index.
function(saferecl_add_compile_fail_test impl rel name tier timeout)
  get_property(sut_target GLOBAL PROPERTY SAFERECL_ADAPTER_${impl}_TARGET)
  set(src ${SAFERECL_SUITE_DIR}/${rel})

  # The implementation's compile flags, collected once per implementation from a probe
  # target that carries the adapter's usage requirements.
  set(probe ${impl}.compile-probe)
  set(pch "")  # <sut.hpp> precompiled with those flags; clang only (g++ has no -include-pch)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(pch ${CMAKE_CURRENT_BINARY_DIR}/${impl}.compile-check.pch)
  endif()
  if(NOT TARGET ${probe})
    add_library(${probe} OBJECT EXCLUDE_FROM_ALL ${SAFERECL_SUITE_DIR}/support/capabilities.cpp)
    target_link_libraries(${probe} PRIVATE ${sut_target} saferecl_test_support)
    set(flags ${CMAKE_CURRENT_BINARY_DIR}/${impl}.compile-flags.rsp)
    file(GENERATE OUTPUT ${flags} CONTENT
"${SAFERECL_CXX_STANDARD_OPTION}
$<$<BOOL:$<TARGET_PROPERTY:${probe},INCLUDE_DIRECTORIES>>:-I$<JOIN:$<TARGET_PROPERTY:${probe},INCLUDE_DIRECTORIES>,\n-I>>
$<$<BOOL:$<TARGET_PROPERTY:${probe},COMPILE_DEFINITIONS>>:-D$<JOIN:$<TARGET_PROPERTY:${probe},COMPILE_DEFINITIONS>,\n-D>>
$<JOIN:$<TARGET_PROPERTY:${probe},COMPILE_OPTIONS>,\n>
")
    if(pch)  # built with everything else, never failing the build (compile_check_pch.cmake)
      add_custom_command(OUTPUT ${pch}
        COMMAND ${CMAKE_COMMAND} -DCOMPILER=${CMAKE_CXX_COMPILER} -DFLAGS_FILE=${flags}
                -DOUTPUT=${pch} -P ${SAFERECL_SUITE_DIR}/cmake/compile_check_pch.cmake
        DEPENDS ${flags} ${SAFERECL_SUITE_DIR}/cmake/compile_check_pch.cmake
        DEPFILE ${pch}.d
        COMMENT "Precompiling <sut.hpp> for the compile-fail checks of ${impl}")
      add_custom_target(${impl}.compile-check-pch ALL DEPENDS ${pch})
    endif()
  endif()
  add_test(NAME "${impl}/${name}"
           COMMAND ${CMAKE_COMMAND}
                   -DCOMPILER=${CMAKE_CXX_COMPILER}
                   -DFLAGS_FILE=${CMAKE_CURRENT_BINARY_DIR}/${impl}.compile-flags.rsp
                   -DPCH=${pch}
                   -DSOURCE=${src}
                   -P ${SAFERECL_SUITE_DIR}/cmake/compile_check.cmake)
  set_tests_properties("${impl}/${name}" PROPERTIES
    LABELS "impl=${impl};tier=${tier};kind=compile-fail;group=api;src=suite/${rel}"
    TIMEOUT ${timeout})
endfunction()
