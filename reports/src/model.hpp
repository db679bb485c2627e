// The report's data model: what the inputs say, after classification and mapping.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace report {

using json = nlohmann::ordered_json;

// Per test, in the order of severity the report uses when several tests meet in one cell.
enum class Verdict { Pass, Fail, Timeout, Crash, NotApplicable, NotBuilt };
inline constexpr Verdict kAllVerdicts[] = {Verdict::Pass,    Verdict::Fail,
                                           Verdict::Timeout, Verdict::Crash,
                                           Verdict::NotApplicable, Verdict::NotBuilt};
const char* to_string(Verdict v);      // "PASS", "NOT APPLICABLE", ...
const char* css_class(Verdict v);      // "pass", "na", ...
bool is_failing(Verdict v);            // FAIL, TIMEOUT, CRASH, NOT BUILT

// Tiers: core and cxx29 are normative (a failure means non-conforming); strict is a
// warning; qoi a finding. A test with no known tier counts as normative.
bool is_normative_tier(const std::string& tier);

// Per implementation and requirement row.
enum class Status { NonConforming, Warning, Qoi, Conforming, NotApplicable, Untested,
                    NotTestable, Unavailable };
const char* to_string(Status s);       // "non-conforming", ...
const char* label(Status s);           // short cell label
const char* css_class(Status s);

struct Test {
  std::string impl;
  std::string name;        // without the "<impl>/" prefix
  std::string ctest_name;  // as CTest knows it ("" when the test never reached CTest)
  Verdict verdict = Verdict::Pass;
  std::string detail;      // how the verdict was reached: "exit status 1", "killed by CTest after 300 s"
  std::string tier = "core", kind, group, source;
  std::string origin = "ctest";  // ctest | source (named from the source: not built / not applicable)
  std::string stable, paragraph;  // from the name: "saferecl.hp.holder.mem", "5"
  std::vector<std::string> requirements;  // catalog row ids
  std::vector<std::string> unknown_ids;   // row-like ids in the name that the catalog lacks
  std::string mapping = "none";           // row-id | paragraph | none
  std::optional<double> duration, timeout;
  std::optional<int> exit_status;
  std::string seed;      // from "[saferecl] ...: seed=N", else the run's seed
  std::string config;    // the test's "[saferecl] <test>: seed=... scale=..." line, if any
  std::string headline;  // the one most telling line of the output
  std::string excerpt;   // output excerpt (failures, not applicable); empty for passes
};

struct Row {  // one requirement row of the catalog
  std::string id, clause, ref, kind, tier, summary;
  std::vector<int> paras;
  bool testable = true;
};

struct Clause {
  std::string key, title;
};

struct Implementation {
  std::string name, reason, version, limits;
  bool available = false, selected = true;
  std::vector<std::string> capabilities;
  // computed
  bool conforming = false;
  std::vector<std::string> why_not;  // reasons it is not conforming
  std::map<Verdict, int> counts;
  int core_failures = 0, strict_warnings = 0, qoi_findings = 0, not_built_sources = 0;
  std::map<Status, int> row_counts;
};

struct BuildFailure {
  std::string impl;    // "" = not one implementation's source: the harness or a link step
  std::string source;  // suite-relative path with "suite/" prefix, or ""
  std::string executable, log;
};

struct Cell {
  Status status = Status::Untested;
  std::vector<size_t> tests;  // indices into Report::tests
};

struct Report {
  std::string title;
  json run = json::object();  // run.json as written by the driver
  std::vector<Implementation> impls;
  std::vector<Test> tests;
  std::vector<BuildFailure> build_failures;
  std::vector<Clause> clauses;
  std::vector<Row> rows;
  std::map<std::string, std::map<std::string, Cell>> cells;  // row id -> impl -> cell
  std::vector<size_t> unmapped;   // tests mapped to no row
  std::vector<std::string> notes; // problems with the inputs, shown in every output
  int tests_not_run = 0;          // listed by CTest, absent from junit.xml (filtered out)
  bool conforming = false;        // the run's verdict (the driver's exit code)
  std::optional<json> mutants, bench;
  std::string catalog_path, source_dir, in_dir;

  const Implementation* impl(const std::string& name) const;
  const Row* row(const std::string& id) const;
};

}  // namespace report
