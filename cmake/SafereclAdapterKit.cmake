# The adapter kit: the find -> version -> probe -> target sequence that every adapter over
# an installed library repeats, written once.
#
#   saferecl_library_adapter(
#     NAME <name>                      adapters/<name>/ (include/sut.hpp)
#     [PACKAGE <debian package>]       named in the reasons when something is missing
#     HEADER <header>                  find_path: its folder becomes a SYSTEM include
#     [HEADER_SUFFIXES <suffix>...]    extra PATH_SUFFIXES for the header
#     [HEADER_PATHS <dir>...]          where to look first (a library in the tree)
#     [LIBRARIES <lib>...]             find_library each (header-only: none)
#     [VERSION_MACRO <header> <macro>] the version: a string macro of a header,
#     [VERSION_PKG_CONFIG <module>]      or pkg-config's version of a module,
#     [VERSION_DPKG <package>]           or the Debian package's version
#     DESCRIPTION <text>               what of the library the adapter maps, e.g. "(urcu-memb)"
#     CAPABILITIES <cap>...            as saferecl_adapter()
#     [LIMITS <text>]
#     [DEFINITIONS <def>...]           INTERFACE compile definitions of the target
#     [LIBRARY_THREADS])               the library keeps threads of its own alive until exit:
#                                      its tests get adapters/kit/tsan_options.cpp (TSan's
#                                      exit-time sleep, 1 s per process, shortened to 50 ms)
#
# The probe (adapters/kit/probe.cpp: a main() that touches every operation of the
# capabilities sut.hpp declares) is compiled and linked like the battery: its standard,
# standard library and the tier's sanitizer flags, so an adapter that would not build in this
# tier is reported unavailable, with the reason, instead of failing 100 test builds. Whatever is missing ends in saferecl_adapter(UNAVAILABLE ...).
#
#   saferecl_adapter_probe(<result> SOURCE <code> [INCLUDES ...] [LIBRARIES ...] [FLAGS ...]
#                          [KEY <text>])
#
# is the probe step alone (the std adapter uses it for its feature checks). The result is
# cached under a name keyed by the code, the options and the tier, so editing an adapter or
# switching tiers probes again.
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

# What a probe compiles with: the build's standard, standard library and tier, then `extra`
# (try_compile does not add the standard itself: CMP0067 is OLD, see CMakeLists.txt).
function(saferecl_probe_compile_flags out)
  set(${out} ${SAFERECL_CXX_STANDARD_OPTION} ${SAFERECL_STDLIB_COMPILE_FLAGS} ${SAFERECL_SANITIZER_FLAGS}
      ${ARGN} PARENT_SCOPE)
endfunction()

function(saferecl_probe_link_flags out)
  set(${out} ${SAFERECL_SANITIZER_FLAGS} ${SAFERECL_STDLIB_LINK_FLAGS} PARENT_SCOPE)
endfunction()

function(saferecl_adapter_probe result)
  cmake_parse_arguments(PARSE_ARGV 1 P "" "SOURCE;KEY" "INCLUDES;LIBRARIES;FLAGS")
  saferecl_probe_compile_flags(compile_flags ${P_FLAGS})
  saferecl_probe_link_flags(link_flags)
  string(MD5 key "${P_SOURCE}|${P_KEY}|${P_INCLUDES}|${P_LIBRARIES}|${compile_flags}|${link_flags}|${CMAKE_CXX_COMPILER}")
  string(SUBSTRING "${key}" 0 8 key)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_INCLUDES ${P_INCLUDES})
  set(CMAKE_REQUIRED_LIBRARIES ${P_LIBRARIES})
  string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${compile_flags}")
  set(CMAKE_REQUIRED_LINK_OPTIONS ${link_flags})
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles("${P_SOURCE}" SAFERECL_PROBE_${result}_${key})
  cmake_pop_check_state()
  set(${result} ${SAFERECL_PROBE_${result}_${key}} PARENT_SCOPE)
endfunction()

function(saferecl_library_adapter)
  cmake_parse_arguments(PARSE_ARGV 0 A "LIBRARY_THREADS" "NAME;PACKAGE;HEADER;VERSION_PKG_CONFIG;VERSION_DPKG;DESCRIPTION;LIMITS"
                        "HEADER_SUFFIXES;HEADER_PATHS;LIBRARIES;VERSION_MACRO;CAPABILITIES;DEFINITIONS")
  set(adapter_dir ${PROJECT_SOURCE_DIR}/adapters/${A_NAME})
  set(kit_dir ${PROJECT_SOURCE_DIR}/adapters/kit/include)
  find_package(Threads REQUIRED)

  # find
  string(TOUPPER "${A_NAME}" upper)
  set(from_package "")
  if(A_PACKAGE)
    set(from_package " (Debian package ${A_PACKAGE})")
  endif()
  find_path(SAFERECL_${upper}_INCLUDE_DIR ${A_HEADER} HINTS ${A_HEADER_PATHS} PATH_SUFFIXES ${A_HEADER_SUFFIXES})
  if(NOT SAFERECL_${upper}_INCLUDE_DIR)
    saferecl_adapter(NAME ${A_NAME} UNAVAILABLE "header ${A_HEADER} not found${from_package}")
    return()
  endif()
  set(include_dir ${SAFERECL_${upper}_INCLUDE_DIR})
  set(libraries)
  foreach(lib IN LISTS A_LIBRARIES)
    string(TOUPPER "${lib}" lib_upper)
    string(MAKE_C_IDENTIFIER "${lib_upper}" lib_upper)
    find_library(SAFERECL_${upper}_${lib_upper}_LIBRARY ${lib})
    if(NOT SAFERECL_${upper}_${lib_upper}_LIBRARY)
      saferecl_adapter(NAME ${A_NAME} UNAVAILABLE "library lib${lib}.so not found${from_package}")
      return()
    endif()
    list(APPEND libraries ${SAFERECL_${upper}_${lib_upper}_LIBRARY})
  endforeach()
  # The tso tier sees only instrumented stores: a precompiled library's go straight to memory,
  # overtaking its caller's buffered ones, which no x86 machine does (suite/support/tso/).
  if(A_LIBRARIES AND SAFERECL_SANITIZER STREQUAL "tso")
    list(TRANSFORM A_LIBRARIES PREPEND lib OUTPUT_VARIABLE names)
    string(REPLACE ";" ", " names "${names}")
    saferecl_adapter(NAME ${A_NAME} UNAVAILABLE
                     "not judged in the tso tier: its library (${names}) is precompiled, not instrumented, so its atomic stores bypass the tier's store buffers and a verdict would rest on executions no x86 machine has (header-only implementations are judged)")
    return()
  endif()
  list(APPEND libraries Threads::Threads)

  # version
  set(version "version unknown")
  if(A_VERSION_MACRO)
    list(GET A_VERSION_MACRO 0 version_header)
    list(GET A_VERSION_MACRO 1 version_macro)
    file(STRINGS ${include_dir}/${version_header} line REGEX "#define ${version_macro} ")
    if(line MATCHES "\"([^\"]*)\"")
      set(version "${CMAKE_MATCH_1}")
    endif()
  elseif(A_VERSION_PKG_CONFIG)
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND)
      pkg_check_modules(SAFERECL_${upper}_PC QUIET ${A_VERSION_PKG_CONFIG})
      if(SAFERECL_${upper}_PC_FOUND)
        set(version "${SAFERECL_${upper}_PC_VERSION}")
      endif()
    endif()
  elseif(A_VERSION_DPKG)
    find_program(SAFERECL_DPKG_QUERY dpkg-query)
    if(SAFERECL_DPKG_QUERY)
      execute_process(COMMAND ${SAFERECL_DPKG_QUERY} -W -f=\${Version} ${A_VERSION_DPKG}
                      OUTPUT_VARIABLE dpkg_version RESULT_VARIABLE dpkg_status ERROR_QUIET)
      if(dpkg_status EQUAL 0 AND dpkg_version)
        set(version "${dpkg_version}")
      endif()
    endif()
  endif()

  # probe
  file(READ ${PROJECT_SOURCE_DIR}/adapters/kit/probe.cpp probe_source)
  file(READ ${adapter_dir}/include/sut.hpp sut_source)
  file(GLOB_RECURSE kit_headers ${kit_dir}/*.hpp)
  set(kit_source)
  foreach(header IN LISTS kit_headers)
    file(READ ${header} text)
    string(APPEND kit_source "${text}")
  endforeach()
  set(probe_flags)
  foreach(definition IN LISTS A_DEFINITIONS)
    list(APPEND probe_flags -D${definition})
  endforeach()
  saferecl_adapter_probe(works SOURCE "${probe_source}" KEY "${sut_source}${kit_source}"
                         INCLUDES ${include_dir} ${adapter_dir}/include ${kit_dir}
                         LIBRARIES ${libraries} FLAGS ${probe_flags})
  if(NOT works)
    saferecl_adapter(NAME ${A_NAME} UNAVAILABLE
                     "${A_NAME} ${version} found (${include_dir}) but adapters/kit/probe.cpp does not compile or link against adapters/${A_NAME}/include/sut.hpp in this tier; see CMakeFiles/CMakeError.log")
    return()
  endif()

  # target
  add_library(sut_${A_NAME} INTERFACE)
  target_include_directories(sut_${A_NAME} INTERFACE ${adapter_dir}/include ${kit_dir})
  target_include_directories(sut_${A_NAME} SYSTEM INTERFACE ${include_dir})
  target_compile_definitions(sut_${A_NAME} INTERFACE ${A_DEFINITIONS})
  if(A_LIBRARY_THREADS)
    target_sources(sut_${A_NAME} INTERFACE ${PROJECT_SOURCE_DIR}/adapters/kit/tsan_options.cpp)
  endif()
  target_link_libraries(sut_${A_NAME} INTERFACE ${libraries})
  saferecl_adapter(NAME ${A_NAME} TARGET sut_${A_NAME} CAPABILITIES ${A_CAPABILITIES}
                   VERSION "${A_NAME} ${version} ${A_DESCRIPTION}" LIMITS "${A_LIMITS}")
endfunction()
