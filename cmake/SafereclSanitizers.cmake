# Compiler flags of the four tiers (SAFERECL_SANITIZER = tsan | asan | tso | none).
#
# tsan  happens-before and data races. doctest's POSIX signal handler allocates inside the
#       handler, which TSan reports on top of the real crash, so it is compiled out.
# asan  AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer, on by default with
#       ASan on Linux): use-after-free, double free, leaks.
# tso   store buffers: TSan's instrumentation, linked with saferecl's runtime instead of TSan's
#       (suite/support/tso/store_buffers.cpp), which keeps atomic stores in a per-thread
#       buffer as x86 may, for long enough that a missing StoreLoad fence shows. Optimized
#       otherwise; the code takes its non-TSan paths (SAFERECL_TSAN=0), and use-after-free is
#       found by the harness's own checks, as in the optimized tier. Adapter probes link TSan's
#       runtime (they are linked, never run), every other executable saferecl_tso_runtime.
# none  optimized, unsanitized; also the benchmark tier.
set(SAFERECL_SANITIZER "tsan" CACHE STRING "Sanitizer tier: tsan, asan, tso or none")
set_property(CACHE SAFERECL_SANITIZER PROPERTY STRINGS tsan asan tso none)

# Line tables only (g++: -g1): the sanitizers' reports and gdb's crash stacks
# (driver/crash_stack.py) name functions, files and lines, which is all they read; full debug
# info (variables, types) made every compile about 15% slower (a stress test under TSan: 3.6 s
# against 3.1 s).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(_saferecl_common -fno-omit-frame-pointer -g1)
else()
  set(_saferecl_common -fno-omit-frame-pointer -gline-tables-only)
endif()
set(CMAKE_CXX_FLAGS_DEBUG "")  # the presets' Debug type would add -g: the tier's flags say all
if(SAFERECL_SANITIZER STREQUAL "tsan")
  set(SAFERECL_SANITIZER_FLAGS -fsanitize=thread -O1 ${_saferecl_common})
  add_compile_definitions(DOCTEST_CONFIG_NO_POSIX_SIGNALS)
elseif(SAFERECL_SANITIZER STREQUAL "asan")
  set(SAFERECL_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
      -O1 ${_saferecl_common})
elseif(SAFERECL_SANITIZER STREQUAL "tso")
  set(SAFERECL_SANITIZER_FLAGS -fsanitize=thread -O2 ${_saferecl_common})
  add_compile_definitions(SAFERECL_TSAN=0 SAFERECL_TEST_UNDER_TSAN=0)
elseif(SAFERECL_SANITIZER STREQUAL "none")
  set(SAFERECL_SANITIZER_FLAGS -O2 ${_saferecl_common})
else()
  message(FATAL_ERROR "SAFERECL_SANITIZER must be tsan, asan, tso or none (got '${SAFERECL_SANITIZER}')")
endif()
add_compile_options(${SAFERECL_SANITIZER_FLAGS})
if(SAFERECL_SANITIZER STREQUAL "tso")
  add_library(saferecl_tso_runtime STATIC ${PROJECT_SOURCE_DIR}/suite/support/tso/store_buffers.cpp)
  target_compile_options(saferecl_tso_runtime PRIVATE -fno-sanitize=thread -mcx16)
  add_link_options(${SAFERECL_SANITIZER_FLAGS} -fno-sanitize-link-runtime)
  link_libraries(saferecl_tso_runtime ${CMAKE_DL_LIBS})
else()
  add_link_options(${SAFERECL_SANITIZER_FLAGS})
endif()
