# Runs one compile-fail test (cmake -P): COMPILER, FLAGS_FILE (response file), SOURCE, and
# PCH: <sut.hpp> precompiled with the same flags (compile_check_pch.cmake), used when it
# exists. The source includes <sut.hpp> first, so loading it first changes nothing but the
# time; a PCH the compiler refuses (stale after a header changed) is dropped, never held
# against the test.
#
# 1. The positive twin -- the source with SAFERECL_MUST_NOT_COMPILE undefined, i.e. the
#    offending line switched off -- must compile; otherwise the test itself, or the part of
#    the implementation's ordinary API it uses, is broken or missing, and "ill-formed" would
#    prove nothing: the test is NOT BUILT (reports/protocol.py TWIN_NOT_BUILT_PREFIX), as a
#    doctest case that does not compile is, with the compiler's message.
# 2. The source with SAFERECL_MUST_NOT_COMPILE=1 must be rejected,
# 3. and not because of a slip in its own offending lines (see below).
function(compile out_rc out_text)
  execute_process(COMMAND ${COMPILER} @${FLAGS_FILE} -fsyntax-only ${ARGN} ${SOURCE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${text}" PARENT_SCOPE)
endfunction()

set(pch_args "")
if(PCH AND EXISTS "${PCH}")
  set(pch_args -include-pch "${PCH}")
endif()
compile(twin_rc twin_text ${pch_args})
if(pch_args AND NOT twin_rc EQUAL 0 AND twin_text MATCHES "precompiled header|PCH file")
  set(pch_args "")
  compile(twin_rc twin_text)
endif()
if(NOT twin_rc EQUAL 0)
  message(FATAL_ERROR "[saferecl] NOT BUILT: the positive twin (offending line switched off) does"
                      " not compile, so this test cannot show anything:\n${twin_text}")
endif()

compile(rc text ${pch_args} -DSAFERECL_MUST_NOT_COMPILE=1)
if(rc EQUAL 0)
  message(FATAL_ERROR "FAIL: compiled, but the program is ill-formed and must be rejected.\n${text}")
endif()

# 3. The rejection must not come from a slip in the offending lines themselves: an error
#    reported in this source that names an unknown identifier, type or header, or a
#    syntax error, proves nothing about the implementation. (Errors inside the
#    implementation's headers are never held against the test.)
string(REPLACE ";" "<semicolon>" lines "${text}")
string(REGEX MATCHALL "[^\n]+" lines "${lines}")
set(slip "error: (use of undeclared identifier|unknown type name|no member named '[^']*' in namespace|no template named|expected |[^ ]+ file not found|.* was not declared in this scope|.* does not name a type|.* is not a member of|.*: No such file or directory)")
foreach(line IN LISTS lines)
  string(FIND "${line}" "${SOURCE}:" at)
  if(at EQUAL 0 AND line MATCHES "${slip}")
    string(REPLACE "<semicolon>" ";" line "${line}")
    message(FATAL_ERROR "FAIL: rejected, but for a reason unrelated to the implementation (a"
                        " misspelt or missing name, or a syntax error, in the test's own lines):\n"
                        "${line}\n\nThe compiler said:\n${text}")
  endif()
endforeach()
string(LENGTH "${text}" length)
if(length GREATER 4000)
  string(SUBSTRING "${text}" 0 4000 text)
  string(APPEND text "\n[... diagnostics truncated ...]")
endif()
message("PASS: rejected as required; the compiler said:\n${text}")
