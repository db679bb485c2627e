# Precompiles <sut.hpp> for one implementation's compile-fail checks (cmake -P): COMPILER,
# FLAGS_FILE (the checks' response file), OUTPUT. Every compile-fail source includes <sut.hpp>
# first, so a check that loads it precompiled parses only its own lines (clang, TSan flags:
# 0.09 s a compile instead of 0.54 s).
#
# Never fails the build: when the implementation's header does not compile, no PCH is
# written and each check compiles without one, reporting the header's error as its own.
file(WRITE "${OUTPUT}.hpp" "#include <sut.hpp>\n")
execute_process(COMMAND ${COMPILER} @${FLAGS_FILE} -x c++-header "${OUTPUT}.hpp" -o "${OUTPUT}"
                        -MD -MF "${OUTPUT}.d" -MT "${OUTPUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}" "${OUTPUT}.d")
  message("<sut.hpp> does not precompile; the compile-fail checks will parse it each time:\n"
          "${text}")
endif()
