// Verdicts from CTest's records, and what the report quotes from a test's output.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace report {

// One <testcase> of CTest's junit.xml, with what tests.json says about the same test.
struct CaseRecord {
  std::string status;        // junit "status": run | fail | notrun | disabled
  bool skipped = false;      // has <skipped>
  std::string skip_message;  // its message ("SKIP_RETURN_CODE=77", "Disabled", ...)
  bool failed = false;       // has <failure>
  std::string output;        // <system-out>
  std::string kind;          // label kind= ("compile-fail" runs through cmake -P)
  double time = 0;           // seconds
  std::optional<double> timeout;  // the TIMEOUT property
};

struct Classification {
  Verdict verdict;
  std::string detail;
  std::optional<int> exit_status;
};

Classification classify(const CaseRecord& record);

// The last "[saferecl] exit status N" line of an output.
std::optional<int> exit_status_of(std::string_view output);
// "[saferecl] <test>: seed=N ..." -> N and the whole line.
void seed_and_config(std::string_view output, std::string& seed, std::string& config);
// The most telling line of an output (a sanitizer's summary, the watchdog, a failed check).
std::string headline_of(std::string_view output);
// Head and tail of an output without doctest's banner, at most about max_chars.
std::string excerpt_of(std::string_view output, size_t max_chars = 6000);

// "saferecl.hp.holder.mem/5 H30: what" -> stable "saferecl.hp.holder.mem", paragraph "5",
// ids {"H30"}.
struct NameParts {
  std::string stable, paragraph;
  std::vector<std::string> ids;
};
NameParts parse_test_name(std::string_view name);

// The test cases a source defines, read from the source itself (for sources that never
// reached CTest): doctest TEST_CASE names with their "<tier>.<kind>" suite, or the
// "// TEST:" and "// TIER:" lines of a compile-fail source.
struct SourceCase {
  std::string name, tier, kind;
};
std::vector<SourceCase> cases_in_source(const std::string& text, bool compile_fail);

}  // namespace report
