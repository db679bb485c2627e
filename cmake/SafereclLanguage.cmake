# The language standard and the standard library of EVERY translation unit of the build:
# the reference implementation, the harness (doctest main, watchdog, support objects), the
# tests, the compile-fail checks and the adapters' availability probes. A standard library
# under test sees one standard and one library in one executable, never a harness built
# against another (which would link two C++ runtimes, or test C++20 declarations of a
# library that only ships its facilities in C++26 mode).
#
#   SAFERECL_CXX_STANDARD          20, 23 or 26
#   SAFERECL_CXX_STANDARD_FLAG     the compiler's spelling of it (-std=c++2c, ...), which the
#                                  driver probes; CMake 3.25 knows no C++26 flag at all
#   SAFERECL_STDLIB                libstdc++ or libc++ (-stdlib=, clang only); empty: the
#                                  compiler's own default
#   SAFERECL_STDLIB_INCLUDE_DIRS   a standard library built from source: its header
#                                  directories replace the compiler's (-nostdinc++ -isystem)
#   SAFERECL_STDLIB_LIBRARY_DIRS   ... and its library directories (-L, with an rpath)
#   SAFERECL_STDLIB_STATIC         link the C++ runtime statically (-static-libstdc++): Debian's
#                                  libc++-22-dev resolves its shared libc++.so to LLVM 19's
#   SAFERECL_RUNTIME_ANNOTATIONS   TSan tier, uninstrumented libc++: link the test executables
#                                  with the wrappers of suite/support/tsan/libcxx_runtime.cpp
#
# Sets SAFERECL_CXX_STANDARD_OPTION, SAFERECL_STDLIB_COMPILE_FLAGS and
# SAFERECL_STDLIB_LINK_FLAGS for the try_compile probes (cmake/SafereclAdapterKit.cmake) and
# the compile-fail response files, which directory-level options do not reach.
set(SAFERECL_CXX_STANDARD 20 CACHE STRING "C++ standard of every translation unit: 20, 23 or 26")
set_property(CACHE SAFERECL_CXX_STANDARD PROPERTY STRINGS 20 23 26)
set(SAFERECL_CXX_STANDARD_FLAG "" CACHE STRING "The compiler's flag for SAFERECL_CXX_STANDARD; empty: CMake's")
set(SAFERECL_STDLIB "" CACHE STRING "Standard library: libstdc++, libc++ or empty (the compiler's default)")
set(SAFERECL_STDLIB_INCLUDE_DIRS "" CACHE STRING "Header directories of a standard library built from source")
set(SAFERECL_STDLIB_LIBRARY_DIRS "" CACHE STRING "Library directories of a standard library built from source")
option(SAFERECL_STDLIB_STATIC "Link the C++ runtime statically" OFF)
option(SAFERECL_RUNTIME_ANNOTATIONS "TSan: annotate an uninstrumented libc++'s synchronization" OFF)

if(NOT SAFERECL_CXX_STANDARD MATCHES "^(20|23|26)$")
  message(FATAL_ERROR "SAFERECL_CXX_STANDARD must be 20, 23 or 26 (got '${SAFERECL_CXX_STANDARD}')")
endif()
if(SAFERECL_STDLIB AND NOT SAFERECL_STDLIB MATCHES "^(libstdc\\+\\+|libc\\+\\+)$")
  message(FATAL_ERROR "SAFERECL_STDLIB must be libstdc++, libc++ or empty (got '${SAFERECL_STDLIB}')")
endif()

set(CMAKE_CXX_STANDARD ${SAFERECL_CXX_STANDARD})
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(SAFERECL_CXX_STANDARD_FLAG)
  set(CMAKE_CXX${SAFERECL_CXX_STANDARD}_STANDARD_COMPILE_OPTION "${SAFERECL_CXX_STANDARD_FLAG}")
endif()
set(SAFERECL_CXX_STANDARD_OPTION "${CMAKE_CXX${SAFERECL_CXX_STANDARD}_STANDARD_COMPILE_OPTION}")
if(NOT SAFERECL_CXX_STANDARD_OPTION)
  message(FATAL_ERROR "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}: CMake knows no flag for "
                      "C++${SAFERECL_CXX_STANDARD}; give it as SAFERECL_CXX_STANDARD_FLAG (./conformance does)")
endif()

set(SAFERECL_STDLIB_COMPILE_FLAGS)
set(SAFERECL_STDLIB_LINK_FLAGS)
if(SAFERECL_STDLIB)
  list(APPEND SAFERECL_STDLIB_COMPILE_FLAGS -stdlib=${SAFERECL_STDLIB})
  list(APPEND SAFERECL_STDLIB_LINK_FLAGS -stdlib=${SAFERECL_STDLIB})
endif()
if(SAFERECL_STDLIB_INCLUDE_DIRS)
  list(APPEND SAFERECL_STDLIB_COMPILE_FLAGS -nostdinc++)
  foreach(dir IN LISTS SAFERECL_STDLIB_INCLUDE_DIRS)
    list(APPEND SAFERECL_STDLIB_COMPILE_FLAGS -isystem${dir})  # one word: CMake de-duplicates options
  endforeach()
endif()
foreach(dir IN LISTS SAFERECL_STDLIB_LIBRARY_DIRS)
  list(APPEND SAFERECL_STDLIB_LINK_FLAGS -L${dir} -Wl,-rpath,${dir})
endforeach()
if(SAFERECL_STDLIB_STATIC)
  list(APPEND SAFERECL_STDLIB_LINK_FLAGS -static-libstdc++)
endif()
add_compile_options(${SAFERECL_STDLIB_COMPILE_FLAGS})
add_link_options(${SAFERECL_STDLIB_LINK_FLAGS})
