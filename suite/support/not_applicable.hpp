// NOT APPLICABLE: a test that needs something the environment or adapter cannot give ends
// with exit_status::kNotApplicable (77), which CTest records as "skipped" and the reports as NOT APPLICABLE.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "support/exit_status.hpp"

namespace saferecl::test {

[[noreturn]] inline void not_applicable(const char* reason) {
  std::fprintf(stderr, "%s %s\n", exit_status::kNotApplicablePrefix, reason);
  std::fflush(stderr);
  std::_Exit(exit_status::kNotApplicable);
}

}  // namespace saferecl::test
