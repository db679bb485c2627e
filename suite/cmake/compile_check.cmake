# Runs one compile-fail test (cmake -P): COMPILER, FLAGS_FILE (response file), SOURCE.
#
# 1. The positive twin -- the source with SAFERECL_MUST_NOT_COMPILE undefined, i.e. the
#    offending line switched off -- must compile; otherwise the test itself (or the
#    implementation's ordinary API) is broken, and "ill-formed" would prove nothing.
# 2. The source with SAFERECL_MUST_NOT_COMPILE=1 must be rejected.
function(compile out_rc out_text)
  execute_process(COMMAND ${COMPILER} @${FLAGS_FILE} -fsyntax-only ${ARGN} ${SOURCE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${text}" PARENT_SCOPE)
endfunction()

compile(twin_rc twin_text)
if(NOT twin_rc EQUAL 0)
  message(FATAL_ERROR "FAIL: the positive twin (offending line switched off) does not compile,"
                      " so this test cannot show anything:\n${twin_text}")
endif()

compile(rc text -DSAFERECL_MUST_NOT_COMPILE=1)
if(rc EQUAL 0)
  message(FATAL_ERROR "FAIL: compiled, but the program is ill-formed and must be rejected.\n${text}")
endif()
string(LENGTH "${text}" length)
if(length GREATER 4000)
  string(SUBSTRING "${text}" 0 4000 text)
  string(APPEND text "\n[... diagnostics truncated ...]")
endif()
message("PASS: rejected as required; the compiler said:\n${text}")
