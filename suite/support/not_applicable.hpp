// NOT APPLICABLE: a test that needs something the environment or adapter cannot give ends
// with exit code 77, which CTest records as "skipped" and the reports as NOT APPLICABLE.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace saferecl::test {

inline constexpr int kNotApplicableExitCode = 77;

[[noreturn]] inline void not_applicable(const char* reason) {
  std::fprintf(stderr, "[saferecl] NOT APPLICABLE: %s\n", reason);
  std::fflush(stderr);
  std::_Exit(kNotApplicableExitCode);
}

}  // namespace saferecl::test
