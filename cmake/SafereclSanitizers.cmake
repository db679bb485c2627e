# Compiler flags of the three tiers (SAFERECL_SANITIZER = tsan | asan | none).
#
# tsan  happens-before and data races. doctest's POSIX signal handler allocates inside the
#       handler, which TSan reports on top of the real crash, so it is compiled out.
# asan  AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer, on by default with
#       ASan on Linux): use-after-free, double free, leaks.
# none  optimized, unsanitized: the only tier where a missing fence shows on x86, since TSan
#       does not model fences; also the benchmark tier.
set(SAFERECL_SANITIZER "tsan" CACHE STRING "Sanitizer tier: tsan, asan or none")
set_property(CACHE SAFERECL_SANITIZER PROPERTY STRINGS tsan asan none)

set(_saferecl_common -fno-omit-frame-pointer -g)
if(SAFERECL_SANITIZER STREQUAL "tsan")
  set(SAFERECL_SANITIZER_FLAGS -fsanitize=thread -O1 ${_saferecl_common})
  add_compile_definitions(DOCTEST_CONFIG_NO_POSIX_SIGNALS)
elseif(SAFERECL_SANITIZER STREQUAL "asan")
  set(SAFERECL_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
      -O1 ${_saferecl_common})
elseif(SAFERECL_SANITIZER STREQUAL "none")
  set(SAFERECL_SANITIZER_FLAGS -O2 ${_saferecl_common})
else()
  message(FATAL_ERROR "SAFERECL_SANITIZER must be tsan, asan or none (got '${SAFERECL_SANITIZER}')")
endif()
add_compile_options(${SAFERECL_SANITIZER_FLAGS})
add_link_options(${SAFERECL_SANITIZER_FLAGS})
