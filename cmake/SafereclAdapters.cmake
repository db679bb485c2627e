# The adapter registry.
#
# Every folder adapters/<name>/ holds an adapter.cmake that detects its implementation and
# calls saferecl_adapter() exactly once, either with a TARGET (an INTERFACE library that
# provides <sut.hpp> and links the implementation) or with UNAVAILABLE "<reason>". An
# unavailable adapter is a row in the reports, never a configure failure.
#
#   saferecl_adapter(NAME <name>
#                    TARGET <target> | UNAVAILABLE <reason>
#                    [CAPABILITIES hazard-pointer rcu hp-batch native-api]
#                    [VERSION <text>]
#                    [LIMITS <text>])
#
# CAPABILITIES must agree with the SUT_HAS_* / SUT_NATIVE_API macros of the adapter's
# sut.hpp; every test executable checks this agreement at compile time.

set(SAFERECL_KNOWN_CAPABILITIES hazard-pointer rcu hp-batch native-api)

# saferecl_library_adapter() and saferecl_adapter_probe(), for the adapters themselves.
include(SafereclAdapterKit)

function(saferecl_adapter)
  cmake_parse_arguments(PARSE_ARGV 0 A "" "NAME;TARGET;UNAVAILABLE;VERSION;LIMITS" "CAPABILITIES")
  if(NOT A_NAME)
    message(FATAL_ERROR "saferecl_adapter: NAME is required")
  endif()
  foreach(cap IN LISTS A_CAPABILITIES)
    if(NOT cap IN_LIST SAFERECL_KNOWN_CAPABILITIES)
      message(FATAL_ERROR "adapter ${A_NAME}: unknown capability '${cap}' "
                          "(known: ${SAFERECL_KNOWN_CAPABILITIES})")
    endif()
  endforeach()
  set(p SAFERECL_ADAPTER_${A_NAME})
  set_property(GLOBAL PROPERTY ${p}_CAPABILITIES "${A_CAPABILITIES}")
  set_property(GLOBAL PROPERTY ${p}_VERSION "${A_VERSION}")
  set_property(GLOBAL PROPERTY ${p}_LIMITS "${A_LIMITS}")
  if(A_TARGET)
    set_property(GLOBAL PROPERTY ${p}_TARGET ${A_TARGET})
    set_property(GLOBAL PROPERTY ${p}_REASON "")
  else()
    if(NOT A_UNAVAILABLE)
      message(FATAL_ERROR "adapter ${A_NAME}: give either TARGET or UNAVAILABLE \"reason\"")
    endif()
    set_property(GLOBAL PROPERTY ${p}_REASON "${A_UNAVAILABLE}")
  endif()
  set_property(GLOBAL PROPERTY ${p}_DECLARED TRUE)
endfunction()

# Names of every adapter folder (each is a selectable implementation).
function(saferecl_known_adapters out)
  file(GLOB entries RELATIVE ${PROJECT_SOURCE_DIR}/adapters ${PROJECT_SOURCE_DIR}/adapters/*)
  set(names)
  foreach(e IN LISTS entries)
    if(EXISTS ${PROJECT_SOURCE_DIR}/adapters/${e}/adapter.cmake)
      list(APPEND names ${e})
    endif()
  endforeach()
  list(SORT names)
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# Loads the selected adapters; sets SAFERECL_AVAILABLE_IMPLEMENTATIONS in the caller and
# writes <build>/saferecl/implementations.json for the driver and the report tool.
function(saferecl_load_adapters selected)
  saferecl_known_adapters(known)
  set(available)
  set(json "[]")
  set(i 0)
  foreach(name IN LISTS selected)
    if(NOT name IN_LIST known)
      message(FATAL_ERROR "Unknown implementation '${name}'. Valid names: ${known}")
    endif()
    include(${PROJECT_SOURCE_DIR}/adapters/${name}/adapter.cmake)
    get_property(declared GLOBAL PROPERTY SAFERECL_ADAPTER_${name}_DECLARED)
    if(NOT declared)
      message(FATAL_ERROR "adapters/${name}/adapter.cmake did not call saferecl_adapter(NAME ${name} ...)")
    endif()
    get_property(target GLOBAL PROPERTY SAFERECL_ADAPTER_${name}_TARGET)
    get_property(reason GLOBAL PROPERTY SAFERECL_ADAPTER_${name}_REASON)
    get_property(caps GLOBAL PROPERTY SAFERECL_ADAPTER_${name}_CAPABILITIES)
    get_property(version GLOBAL PROPERTY SAFERECL_ADAPTER_${name}_VERSION)
    get_property(limits GLOBAL PROPERTY SAFERECL_ADAPTER_${name}_LIMITS)
    if(target)
      list(APPEND available ${name})
      message(STATUS "saferecl: implementation ${name}: available (${caps})")
    else()
      message(STATUS "saferecl: implementation ${name}: unavailable: ${reason}")
    endif()
    set(entry "{}")
    string(JSON entry SET "${entry}" name "\"${name}\"")
    if(target)
      string(JSON entry SET "${entry}" available true)
    else()
      string(JSON entry SET "${entry}" available false)
    endif()
    saferecl_json_string(reason_json "${reason}")
    saferecl_json_string(version_json "${version}")
    saferecl_json_string(limits_json "${limits}")
    string(JSON entry SET "${entry}" reason "${reason_json}")
    string(JSON entry SET "${entry}" version "${version_json}")
    string(JSON entry SET "${entry}" limits "${limits_json}")
    set(caps_json "[]")
    set(j 0)
    foreach(cap IN LISTS caps)
      string(JSON caps_json SET "${caps_json}" ${j} "\"${cap}\"")
      math(EXPR j "${j} + 1")
    endforeach()
    string(JSON entry SET "${entry}" capabilities "${caps_json}")
    string(JSON json SET "${json}" ${i} "${entry}")
    math(EXPR i "${i} + 1")
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/saferecl/implementations.json "${json}\n")
  set(SAFERECL_AVAILABLE_IMPLEMENTATIONS ${available} PARENT_SCOPE)
endfunction()

# Quotes and escapes a CMake string as a JSON string literal.
function(saferecl_json_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()
