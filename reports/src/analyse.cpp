// Requirement mapping and verdicts per requirement and implementation.
#include <algorithm>
#include <map>
#include <set>

#include "classify.hpp"
#include "inputs.hpp"
#include "util.hpp"

namespace report {
namespace {

std::string without_prefix(const std::string& stable) {
  return starts_with(stable, "saferecl.") ? stable.substr(9) : stable;
}

void map_to_rows(Report& report, Test& t) {
  const auto parts = parse_test_name(t.name);
  t.stable = parts.stable;
  t.paragraph = parts.paragraph;
  for (const auto& id : parts.ids) {
    if (report.row(id)) t.requirements.push_back(id);
    else t.unknown_ids.push_back(id);
  }
  if (!t.requirements.empty()) {
    t.mapping = "row-id";
    return;
  }
  if (t.stable.empty() || t.paragraph.empty()) return;
  const int para = std::stoi(t.paragraph);
  for (const auto& row : report.rows) {
    if (without_prefix(row.clause) != without_prefix(t.stable)) continue;
    if (std::find(row.paras.begin(), row.paras.end(), para) != row.paras.end())
      t.requirements.push_back(row.id);
  }
  if (!t.requirements.empty()) t.mapping = "paragraph";
}

Status cell_status(const Report& report, const std::vector<size_t>& tests) {
  bool bad = false, warn = false, qoi = false, pass = false;
  for (auto i : tests) {
    const auto& t = report.tests[i];
    if (is_failing(t.verdict)) {
      if (t.tier == "strict") warn = true;
      else if (t.tier == "qoi") qoi = true;
      else bad = true;
    }
    if (t.verdict == Verdict::Pass) pass = true;
  }
  if (bad) return Status::NonConforming;
  if (warn) return Status::Warning;
  if (qoi) return Status::Qoi;
  if (pass) return Status::Conforming;
  return Status::NotApplicable;  // every test not applicable
}

}  // namespace

void analyse(Report& report) {
  // A stable order: implementations as configured, then test name.
  std::map<std::string, size_t> impl_order;
  for (size_t i = 0; i < report.impls.size(); ++i) impl_order[report.impls[i].name] = i;
  std::stable_sort(report.tests.begin(), report.tests.end(), [&](const Test& a, const Test& b) {
    auto ia = impl_order.count(a.impl) ? impl_order[a.impl] : report.impls.size();
    auto ib = impl_order.count(b.impl) ? impl_order[b.impl] : report.impls.size();
    return ia != ib ? ia < ib : a.name < b.name;
  });

  std::set<std::string> unknown;
  for (size_t i = 0; i < report.tests.size(); ++i) {
    auto& t = report.tests[i];
    map_to_rows(report, t);
    for (const auto& id : t.unknown_ids) unknown.insert(id);
    if (t.requirements.empty()) report.unmapped.push_back(i);
  }
  if (!unknown.empty()) {
    std::string ids;
    for (const auto& id : unknown) ids += (ids.empty() ? "" : ", ") + id;
    report.notes.push_back("test names cite requirement ids the catalog does not have: " + ids);
  }
  for (const auto& t : report.tests)
    if (!report.impl(t.impl))
      report.notes.push_back("test '" + t.ctest_name + "' belongs to no known implementation");

  for (const auto& row : report.rows) {
    for (const auto& impl : report.impls) {
      Cell cell;
      for (size_t i = 0; i < report.tests.size(); ++i) {
        const auto& t = report.tests[i];
        if (t.impl == impl.name &&
            std::find(t.requirements.begin(), t.requirements.end(), row.id) != t.requirements.end())
          cell.tests.push_back(i);
      }
      if (!impl.available) cell.status = Status::Unavailable;
      else if (!cell.tests.empty()) cell.status = cell_status(report, cell.tests);
      else cell.status = row.testable ? Status::Untested : Status::NotTestable;
      report.cells[row.id][impl.name] = cell;
    }
  }

  bool any = false, all = true;
  const bool explicit_selection = report.run.value("explicit_selection", false);
  std::vector<const BuildFailure*> harness;
  for (const auto& f : report.build_failures)
    if (f.impl.empty()) harness.push_back(&f);
  for (auto& impl : report.impls) {
    for (auto v : kAllVerdicts) impl.counts[v] = 0;
    std::set<std::string> not_built;
    for (const auto& t : report.tests) {
      if (t.impl != impl.name) continue;
      ++impl.counts[t.verdict];
      if (!is_failing(t.verdict)) continue;
      if (t.verdict == Verdict::NotBuilt) not_built.insert(t.source);
      if (t.tier == "strict") ++impl.strict_warnings;
      else if (t.tier == "qoi") ++impl.qoi_findings;
      else ++impl.core_failures;
    }
    impl.not_built_sources = static_cast<int>(not_built.size());
    for (const auto& row : report.rows) ++impl.row_counts[report.cells[row.id][impl.name].status];

    if (!impl.available) {
      impl.why_not.push_back("unavailable: " + impl.reason);
    } else {
      if (impl.core_failures > 0)
        impl.why_not.push_back(std::to_string(impl.core_failures) +
                               " failing normative (core/cxx29) test(s)");
      for (const auto* f : harness)
        impl.why_not.push_back("the test harness did not build (" + f->executable + ")");
      if (impl.counts[Verdict::Pass] == 0) impl.why_not.push_back("no test passed");
    }
    impl.conforming = impl.why_not.empty();
    if (!impl.selected) continue;
    if (impl.available) {
      any = true;
      all = all && impl.conforming;
    } else if (explicit_selection) {
      all = false;
    }
  }
  report.conforming = any && all;
}

}  // namespace report
