// The three outputs. Each returns the file's text; main writes them atomically.
#pragma once

#include <string>

#include "model.hpp"

namespace report {

inline constexpr const char* kToolVersion = "saferecl-report 1.0";
inline constexpr const char* kResultsSchema = "saferecl-results/1";

std::string results_json(const Report& report);
std::string summary_markdown(const Report& report);
std::string report_html(const Report& report);

// Helpers shared by the writers.
std::string run_line(const Report& report);  // "tsan, profile quick (scale 1), seed 42, ..."
std::string verdict_counts(const Implementation& impl);  // "12 PASS, 1 FAIL, ..."
struct Finding {  // one requirement cell that is not conforming/warning/qoi
  const Row* row;
  const Implementation* impl;
  const Cell* cell;
};
std::vector<Finding> findings(const Report& report, Status status);

// One entry of mutants.json, read leniently (see reports/README.md for the format).
struct Mutant {
  std::string id, description, tier, verdict;
  std::vector<std::string> expected;  // expected killers (test-name patterns or scenario ids)
  std::vector<std::pair<std::string, std::optional<double>>> killed_by;  // test, seconds
  std::optional<double> first_kill;
  bool ok = false;  // the outcome the catalog expects (killed, or spared when not a bug)
};
std::vector<Mutant> mutants_of(const json& mutants);

}  // namespace report
