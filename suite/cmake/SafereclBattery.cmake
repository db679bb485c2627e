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
# Directives, in the first comment lines of a source:
#   // REQUIRES: <capability>[, <capability>...]   hazard-pointer rcu hp-batch native-api
#   // TEST: <name>          (compile-fail files) the test's name, stable name first
#   // TIER: <tier>          (compile-fail files) core (default), strict, qoi or cxx29
# saferecl.hp implies hazard-pointer, saferecl.rcu implies rcu, .compile.pass.cpp and
# .compile.fail.cpp imply native-api. A source whose requirements the adapter lacks is recorded as not applicable.
#
# Sources that fail to compile for an implementation are reported by the driver and left
# out on a second build (SAFERECL_EXCLUDED_SOURCES), so the rest of the battery still runs.

set(SAFERECL_TEST_TIMEOUT 300 CACHE STRING
    "CTest TIMEOUT in seconds of one test case (stress tests get three times as much)")
set(SAFERECL_SOURCES "" CACHE STRING
    "Regular expression: build only the suite sources (relative to suite/) it matches; empty: all")
set(SAFERECL_EXCLUDED_SOURCES "" CACHE STRING
    "<impl>|<suite-relative source> entries left out because they do not compile (set by ./conformance)")

set(SAFERECL_SUITE_DIR ${CMAKE_CURRENT_LIST_DIR}/..)
get_filename_component(SAFERECL_SUITE_DIR ${SAFERECL_SUITE_DIR} ABSOLUTE)
set(SAFERECL_TIERS core strict qoi cxx29)
set(SAFERECL_KINDS api compile-fail semantic concurrency stress fault lifetime bench)
set_property(GLOBAL PROPERTY SAFERECL_MANIFEST "[]")

# The capabilities a source needs: implied by its area, plus its REQUIRES directive.
function(saferecl_source_requirements rel out)
  set(req)
  if(rel MATCHES "^saferecl\\.hp/")
    list(APPEND req hazard-pointer)
  elseif(rel MATCHES "^saferecl\\.rcu/")
    list(APPEND req rcu)
  endif()
  if(rel MATCHES "\\.compile\\.(fail|pass)\\.cpp$")
    list(APPEND req native-api)  # API shape is the implementation's own only when native
  endif()
  file(STRINGS ${SAFERECL_SUITE_DIR}/${rel} directive REGEX "^// REQUIRES:" LIMIT_COUNT 1)
  if(directive)
    string(REGEX REPLACE "^// REQUIRES:[ ]*" "" directive "${directive}")
    string(REGEX REPLACE "[ ,]+" ";" directive "${directive}")
    foreach(cap IN LISTS directive)
      if(NOT cap IN_LIST SAFERECL_KNOWN_CAPABILITIES)
        message(FATAL_ERROR "suite/${rel}: unknown capability '${cap}' in REQUIRES "
                            "(known: ${SAFERECL_KNOWN_CAPABILITIES})")
      endif()
      list(APPEND req ${cap})
    endforeach()
  endif()
  list(REMOVE_DUPLICATES req)
  set(${out} ${req} PARENT_SCOPE)
endfunction()

function(saferecl_group_of rel out)
  string(REGEX MATCH "^[^/]+" area "${rel}")
  string(REGEX REPLACE "^saferecl\\." "" group "${area}")
  if(rel MATCHES "\\.fault\\.pass\\.cpp$")
    string(APPEND group "-fault")
  endif()
  set(${out} ${group} PARENT_SCOPE)
endfunction()

function(saferecl_manifest_add impl executable rel group applicable reason)
  get_property(manifest GLOBAL PROPERTY SAFERECL_MANIFEST)
  string(JSON n LENGTH "${manifest}")
  saferecl_json_string(reason_json "${reason}")
  set(entry "{}")
  string(JSON entry SET "${entry}" implementation "\"${impl}\"")
  string(JSON entry SET "${entry}" executable "\"${executable}\"")
  string(JSON entry SET "${entry}" source "\"suite/${rel}\"")
  string(JSON entry SET "${entry}" group "\"${group}\"")
  string(JSON entry SET "${entry}" status "\"${applicable}\"")
  string(JSON entry SET "${entry}" reason "${reason_json}")
  string(JSON manifest SET "${manifest}" ${n} "${entry}")
  set_property(GLOBAL PROPERTY SAFERECL_MANIFEST "${manifest}")
endfunction()

function(saferecl_write_manifest)
  get_property(manifest GLOBAL PROPERTY SAFERECL_MANIFEST)
  file(WRITE ${CMAKE_BINARY_DIR}/saferecl/manifest.json "${manifest}\n")
endfunction()

# Defines the executables and tests of one implementation's battery.
function(saferecl_add_battery impl)
  get_property(sut_target GLOBAL PROPERTY SAFERECL_ADAPTER_${impl}_TARGET)
  get_property(caps GLOBAL PROPERTY SAFERECL_ADAPTER_${impl}_CAPABILITIES)
  file(GLOB_RECURSE sources RELATIVE ${SAFERECL_SUITE_DIR} CONFIGURE_DEPENDS
       ${SAFERECL_SUITE_DIR}/saferecl.*/*.cpp ${SAFERECL_SUITE_DIR}/stress/*.cpp)
  if(SAFERECL_SOURCES)
    list(FILTER sources INCLUDE REGEX "${SAFERECL_SOURCES}")
  endif()
  list(SORT sources)

  set(groups)
  foreach(rel IN LISTS sources)
    saferecl_source_requirements(${rel} req)
    set(missing)
    foreach(cap IN LISTS req)
      if(NOT cap IN_LIST caps)
        list(APPEND missing ${cap})
      endif()
    endforeach()
    saferecl_group_of(${rel} group)
    if(rel MATCHES "\\.compile\\.fail\\.cpp$")
      set(executable "")
    else()
      set(executable "${impl}.${group}")
    endif()
    if(missing)
      string(REPLACE ";" ", " missing "${missing}")
      saferecl_manifest_add(${impl} "${executable}" ${rel} ${group} "not-applicable"
                            "the ${impl} adapter lacks: ${missing}")
    elseif("${impl}|${rel}" IN_LIST SAFERECL_EXCLUDED_SOURCES)
      saferecl_manifest_add(${impl} "${executable}" ${rel} ${group} "not-built"
                            "does not compile against ${impl}")
    elseif(rel MATCHES "\\.compile\\.fail\\.cpp$")
      saferecl_manifest_add(${impl} "" ${rel} ${group} "compile-test" "")
      saferecl_add_compile_fail_test(${impl} ${sut_target} ${rel})
    elseif(rel MATCHES "\\.pass\\.cpp$")
      saferecl_manifest_add(${impl} "${executable}" ${rel} ${group} "built" "")
      list(APPEND groups ${group})
      list(APPEND sources_${group} ${SAFERECL_SUITE_DIR}/${rel})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES groups)

  foreach(group IN LISTS groups)
    saferecl_add_battery_executable(${impl} ${sut_target} ${group} "${caps}" ${sources_${group}})
  endforeach()
endfunction()

function(saferecl_add_battery_executable impl sut_target group caps)
  set(exe ${impl}.${group})
  add_executable(${exe} ${ARGN}
    ${SAFERECL_SUITE_DIR}/support/capabilities.cpp
    ${SAFERECL_SUITE_DIR}/support/tracked.cpp
    $<TARGET_OBJECTS:saferecl_test_support>)
  target_link_libraries(${exe} PRIVATE ${sut_target} saferecl_test_support)
  if(group MATCHES "-fault$")
    target_sources(${exe} PRIVATE $<TARGET_OBJECTS:saferecl_fault_injection>)
    if(NOT SAFERECL_SANITIZER STREQUAL "none")  # see support/fault_injection.cpp
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

  # Tests are discovered when CTest starts (not at build time), so an executable that
  # crashes while listing its tests cannot break the build.
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${exe}.discover.cmake)
  file(GENERATE OUTPUT ${include_file} CONTENT
"set(SAFERECL_DISCOVER_EXE [==[$<TARGET_FILE:${exe}>]==])
set(SAFERECL_DISCOVER_IMPL ${impl})
set(SAFERECL_DISCOVER_GROUP ${group})
set(SAFERECL_DISCOVER_TIMEOUT ${SAFERECL_TEST_TIMEOUT})
set(SAFERECL_DISCOVER_SUITE_DIR [==[${SAFERECL_SUITE_DIR}]==])
include([==[${SAFERECL_SUITE_DIR}/cmake/discover_tests.cmake]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()

# One CTest test per compile-fail source and implementation.
function(saferecl_add_compile_fail_test impl sut_target rel)
  set(src ${SAFERECL_SUITE_DIR}/${rel})
  file(STRINGS ${src} name REGEX "^// TEST:" LIMIT_COUNT 1)
  string(REGEX REPLACE "^// TEST:[ ]*" "" name "${name}")
  if(NOT name)
    message(FATAL_ERROR "suite/${rel}: a compile-fail source needs a '// TEST: <name>' line")
  endif()
  file(STRINGS ${src} tier REGEX "^// TIER:" LIMIT_COUNT 1)
  string(REGEX REPLACE "^// TIER:[ ]*" "" tier "${tier}")
  if(NOT tier)
    set(tier core)
  endif()
  if(NOT tier IN_LIST SAFERECL_TIERS)
    message(FATAL_ERROR "suite/${rel}: unknown TIER '${tier}' (known: ${SAFERECL_TIERS})")
  endif()

  # The implementation's compile flags, collected once per implementation from a probe
  # target that carries the adapter's usage requirements.
  set(probe ${impl}.compile-probe)
  if(NOT TARGET ${probe})
    add_library(${probe} OBJECT EXCLUDE_FROM_ALL ${SAFERECL_SUITE_DIR}/support/capabilities.cpp)
    target_link_libraries(${probe} PRIVATE ${sut_target} saferecl_test_support)
    set(flags ${CMAKE_CURRENT_BINARY_DIR}/${impl}.compile-flags.rsp)
    file(GENERATE OUTPUT ${flags} CONTENT
"-std=c++20
$<$<BOOL:$<TARGET_PROPERTY:${probe},INCLUDE_DIRECTORIES>>:-I$<JOIN:$<TARGET_PROPERTY:${probe},INCLUDE_DIRECTORIES>,\n-I>>
$<$<BOOL:$<TARGET_PROPERTY:${probe},COMPILE_DEFINITIONS>>:-D$<JOIN:$<TARGET_PROPERTY:${probe},COMPILE_DEFINITIONS>,\n-D>>
$<JOIN:$<TARGET_PROPERTY:${probe},COMPILE_OPTIONS>,\n>
")
  endif()
  add_test(NAME "${impl}/${name}"
           COMMAND ${CMAKE_COMMAND}
                   -DCOMPILER=${CMAKE_CXX_COMPILER}
                   -DFLAGS_FILE=${CMAKE_CURRENT_BINARY_DIR}/${impl}.compile-flags.rsp
                   -DSOURCE=${src}
                   -P ${SAFERECL_SUITE_DIR}/cmake/compile_check.cmake)
  set_tests_properties("${impl}/${name}" PROPERTIES
    LABELS "impl=${impl};tier=${tier};kind=compile-fail;group=api;src=suite/${rel}"
    TIMEOUT 120)
endfunction()
