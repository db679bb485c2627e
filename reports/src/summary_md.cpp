// summary.md: short enough for a CI job summary; report.html has the rest.
#include <set>

#include "util.hpp"
#include "writers.hpp"

namespace report {
namespace {

constexpr size_t kMaxItems = 40;  // per section; the rest is counted, and in report.html

std::string code(std::string_view s) {
  std::string out = "`";
  for (char c : s) out += c == '`' ? '\'' : c == '\n' ? ' ' : c;
  return out + "`";
}

std::string test_line(const Test& t, bool with_impl) {
  std::string s = "  - ";
  if (with_impl) s += t.impl + ": ";
  s += std::string("**") + to_string(t.verdict) + "** " + code(t.name);
  if (t.tier != "core") s += " (" + t.tier + ")";
  if (!t.detail.empty()) s += " — " + md_escape(t.detail);
  if (!t.headline.empty()) s += "<br>" + code(t.headline);
  return s + "\n";
}

void findings_section(std::string& md, const Report& report, Status status,
                      const std::string& heading) {
  auto list = findings(report, status);
  if (list.empty()) return;
  md += "\n## " + heading + " (" + std::to_string(list.size()) + ")\n\n";
  size_t shown = 0;
  for (const auto& f : list) {
    if (shown++ == kMaxItems) {
      md += "- ... and " + std::to_string(list.size() - kMaxItems) + " more in report.html\n";
      break;
    }
    md += "- **" + f.row->id + "** " + md_escape(f.row->ref) + " — " + md_escape(f.row->summary) +
          " — *" + f.impl->name + "*\n";
    for (auto i : f.cell->tests) {
      const auto& t = report.tests[i];
      if (is_failing(t.verdict)) md += test_line(t, false);
    }
  }
}

// ./conformance bench: the benchmark table instead of verdicts (there are no tests).
std::string bench_markdown(const Report& report) {
  std::string md = "# " + (report.title.empty() ? std::string("saferecl benchmarks") : report.title) +
                   "\n\n" + md_escape(run_line(report)) + "\n\n";
  const BenchTable table = bench_table(report.bench ? *report.bench : json());
  md += "Median per operation, and its ratio to the reference measured in the same run (lower "
        "is faster); *wall*: wall-clock time, otherwise CPU time per thread.";
  if (!table.setup.empty()) md.append(" ").append(md_escape(table.setup)).append(".");
  auto cell = [&md](const std::string& text) { md.append(" ").append(text).append(" |"); };
  md += "\n\n| benchmark | threads |";
  for (const auto& i : table.impls) cell(md_escape(i));
  md += "\n|---|---|";
  for (size_t k = 0; k < table.impls.size(); ++k) md += "---|";
  md += "\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& [name, threads] = table.rows[r];
    md += "|";
    cell(md_escape(name) + (table.clocks[r] == "real" ? " *wall*" : ""));
    cell(threads ? std::to_string(threads) : "");
    for (const auto& i : table.impls) {
      auto it = table.cells.find({r, i});
      if (it == table.cells.end()) cell("");
      else if (it->second.status == "ok" && it->second.median_ns)
        cell(md_escape(format_ns(*it->second.median_ns)) +
             (it->second.ratio ? " (" + fixed(*it->second.ratio, 2) + "×)" : ""));
      else cell(md_escape(it->second.status));
    }
    md += "\n";
  }
  if (!report.notes.empty()) {
    md += "\n## Notes on the inputs\n\n";
    for (const auto& n : report.notes) md += "- " + md_escape(n) + "\n";
  }
  md += "\nFull table with the reasons of every n/a: `report.html`; the samples: `bench.json`.\n";
  return md;
}

}  // namespace

std::string summary_markdown(const Report& report) {
  if (is_bench_only(report)) return bench_markdown(report);
  std::string md = "# " + (report.title.empty() ? std::string("saferecl conformance") : report.title) +
                   ": " + (report.conforming ? "conforming" : "NOT conforming") + "\n\n";
  md += md_escape(run_line(report)) + "\n\n";
  md += "| implementation | verdict | core failures | strict warnings | QoI findings | tests |\n";
  md += "|---|---|---|---|---|---|\n";
  for (const auto& impl : report.impls) {
    if (!impl.available) {
      md += "| " + md_escape(impl.name) + " | unavailable: " + md_escape(impl.reason) + " | | | | |\n";
      continue;
    }
    std::string verdict = impl.conforming ? "conforming" : "**NOT conforming**";
    if (!impl.conforming && !impl.why_not.empty()) {
      std::string why;
      for (const auto& w : impl.why_not) why += (why.empty() ? "" : "; ") + w;
      verdict += " (" + md_escape(why) + ")";
    }
    md += "| ";
    md += md_escape(impl.name);
    if (!impl.version.empty()) {
      md += ' ';
      md += md_escape(impl.version);
    }
    md += " | " + verdict;
    for (int n : {impl.core_failures, impl.strict_warnings, impl.qoi_findings}) {
      md += " | ";
      md += std::to_string(n);
    }
    md += " | " + verdict_counts(impl) + " |\n";
  }

  std::set<std::string> covered;
  int testable = 0;
  for (const auto& t : report.tests)
    for (const auto& id : t.requirements)
      if (const Row* row = report.row(id); row && row->testable) covered.insert(id);
  for (const auto& row : report.rows) testable += row.testable ? 1 : 0;
  md += "\nRequirement coverage: " + std::to_string(covered.size()) + " of " +
        std::to_string(testable) + " testable rows of the catalog have tests";
  if (static_cast<int>(covered.size()) < testable) {
    md += "; untested:";
    for (const auto& row : report.rows)
      if (row.testable && !covered.count(row.id)) md += " " + row.id;
  }
  md += ".\n";
  if (report.tests_not_run > 0)
    md += "\n" + std::to_string(report.tests_not_run) +
          " listed test(s) did not run (filtered out by CTest arguments).\n";

  findings_section(md, report, Status::NonConforming, "Non-conforming requirements");

  std::vector<const Test*> loose;
  for (auto i : report.unmapped)
    if (is_failing(report.tests[i].verdict) && report.tests[i].verdict != Verdict::NotBuilt)
      loose.push_back(&report.tests[i]);
  if (!loose.empty()) {
    md += "\n## Failing tests with no requirement row (" + std::to_string(loose.size()) + ")\n\n";
    for (size_t k = 0; k < loose.size() && k < kMaxItems; ++k) md += test_line(*loose[k], true).substr(2);
    if (loose.size() > kMaxItems)
      md += "- ... and " + std::to_string(loose.size() - kMaxItems) + " more in report.html\n";
  }

  // Sources that did not compile, and harness failures.
  std::vector<std::string> nb;
  for (const auto& f : report.build_failures) {
    std::string first;
    for (auto line : split_lines(f.log))
      if (contains(line, "error")) {
        first = trim(line);
        break;
      }
    nb.push_back("- " + (f.impl.empty() ? std::string("all implementations (harness)") : f.impl) +
                 ": " + code(f.source.empty() ? f.executable : f.source) +
                 (first.empty() ? "" : "<br>" + code(first.substr(0, 300))));
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& f : report.build_failures) seen.insert({f.impl, f.source});
  for (const auto& t : report.tests)
    if (t.verdict == Verdict::NotBuilt && !seen.count({t.impl, t.source})) {
      seen.insert({t.impl, t.source});
      nb.push_back("- " + t.impl + ": " + code(t.source) + " — " + md_escape(t.detail));
    }
  if (!nb.empty()) {
    md += "\n## Not built (" + std::to_string(nb.size()) + ")\n\n";
    for (size_t k = 0; k < nb.size() && k < kMaxItems; ++k) md += nb[k] + "\n";
    if (nb.size() > kMaxItems) md += "- ... and " + std::to_string(nb.size() - kMaxItems) + " more\n";
  }

  findings_section(md, report, Status::Warning, "Strict-tier warnings");
  findings_section(md, report, Status::Qoi, "Quality-of-implementation findings");

  if (report.mutants) {
    const auto list = mutants_of(*report.mutants);
    std::string bad;
    int killed = 0;
    for (const auto& m : list) {
      killed += m.killed_by.empty() ? 0 : 1;
      if (!m.ok) bad += (bad.empty() ? "" : ", ") + m.id + " (" + m.verdict + ")";
    }
    md += "\nMutants: " + std::to_string(list.size()) + " run, " + std::to_string(killed) +
          " killed; " + (bad.empty() ? std::string("all as the catalog expects") : "NOT as expected: " + md_escape(bad)) +
          ".\n";
  }
  if (!report.notes.empty()) {
    md += "\n## Notes on the inputs\n\n";
    for (const auto& n : report.notes) md += "- " + md_escape(n) + "\n";
  }
  md += "\nFull report: `report.html`; machine-readable: `results.json`; per test: `junit.xml`.\n";
  return md;
}

}  // namespace report
