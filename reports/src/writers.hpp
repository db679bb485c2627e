// The three outputs. Each returns the file's text; main writes them atomically.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

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

// bench.json (reports/README.md), read leniently: one row per benchmark and thread count in
// the file's order, one column per implementation (bench.json's "implementations" first).
struct BenchCell {
  std::string status;  // ok, n/a, timeout, failed, unavailable, not built
  std::string reason;
  std::optional<double> median_ns, ratio;  // ratio: median / the reference's median
  int repetitions = 0;
};
struct BenchTable {
  std::vector<std::string> impls;
  std::vector<std::pair<std::string, int>> rows;  // benchmark, threads (0: not given)
  std::vector<std::string> clocks;                // per row: "cpu", "real" or ""
  std::map<std::pair<size_t, std::string>, BenchCell> cells;  // (row index, impl)
  std::map<std::string, std::string> unavailable;  // impl -> why it has no numbers at all
  int repetitions = 0;  // of the run (0: not given); a cell with fewer says so
  std::string setup;    // repetitions, order, load average: how the numbers were taken
};
BenchTable bench_table(const json& bench);
std::string format_ns(double ns);  // "1.52 ns", "33.1 µs", "10.3 ms"
bool is_bench_only(const Report& report);  // a directory of ./conformance bench: no tests

}  // namespace report
