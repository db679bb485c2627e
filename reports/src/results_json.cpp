#include <set>

#include "util.hpp"
#include "writers.hpp"

namespace report {

std::string run_line(const Report& report) {
  const auto& run = report.run;
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : "; ") + part; };
  if (run.contains("sanitizer")) add("sanitizer " + run["sanitizer"].get<std::string>());
  if (run.contains("profile"))
    add("profile " + run["profile"].get<std::string>() +
        (run.contains("stress_scale") ? " (scale " + run["stress_scale"].dump() + ")" : ""));
  if (run.contains("seed")) add("seed " + run["seed"].dump());
  if (run.contains("compiler_version") && run["compiler_version"].is_string())
    add(run["compiler_version"].get<std::string>());
  if (run.contains("host_cores")) add(run["host_cores"].dump() + " cores");
  if (run.contains("date") && run["date"].is_string()) add(run["date"].get<std::string>());
  return s;
}

std::string verdict_counts(const Implementation& impl) {
  std::string s;
  for (auto v : kAllVerdicts) {
    auto it = impl.counts.find(v);
    int n = it == impl.counts.end() ? 0 : it->second;
    if (n == 0) continue;
    s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(v);
  }
  return s.empty() ? "no tests" : s;
}

std::vector<Finding> findings(const Report& report, Status status) {
  std::vector<Finding> out;
  for (const auto& row : report.rows) {
    auto cells = report.cells.find(row.id);
    if (cells == report.cells.end()) continue;
    for (const auto& impl : report.impls) {
      auto c = cells->second.find(impl.name);
      if (c != cells->second.end() && c->second.status == status)
        out.push_back({&row, &impl, &c->second});
    }
  }
  return out;
}

std::vector<Mutant> mutants_of(const json& doc) {
  std::vector<Mutant> out;
  const json* list = &doc;
  if (doc.is_object() && doc.contains("mutants")) list = &doc["mutants"];
  if (!list->is_array()) return out;
  auto text = [](const json& m, std::initializer_list<const char*> keys) {
    for (const char* k : keys)
      if (m.contains(k) && m[k].is_string()) return m[k].get<std::string>();
    return std::string();
  };
  auto number = [](const json& m, std::initializer_list<const char*> keys) -> std::optional<double> {
    for (const char* k : keys)
      if (m.contains(k) && m[k].is_number()) return m[k].get<double>();
    return std::nullopt;
  };
  for (const auto& m : *list) {
    if (!m.is_object()) continue;
    Mutant mu;
    mu.id = text(m, {"id"});
    mu.description = text(m, {"description", "title", "summary", "what"});
    mu.tier = text(m, {"tier", "sanitizer"});
    mu.verdict = text(m, {"verdict"});
    for (const char* k : {"expected_killers", "kill"})
      if (m.contains(k) && m[k].is_array())
        for (const auto& e : m[k]) mu.expected.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    if (m.contains("killed_by") && m["killed_by"].is_array()) {
      for (const auto& k : m["killed_by"]) {
        if (k.is_string()) mu.killed_by.push_back({k.get<std::string>(), std::nullopt});
        else if (k.is_object()) mu.killed_by.push_back({text(k, {"test", "name"}), number(k, {"time"})});
      }
    } else if (m.contains("killing_tests") && m["killing_tests"].is_array()) {
      for (const auto& k : m["killing_tests"])
        if (k.is_string()) mu.killed_by.push_back({k.get<std::string>(), std::nullopt});
    }
    mu.first_kill = number(m, {"time_to_first_kill", "time_to_first_kill_s"});
    if (m.contains("ok") && m["ok"].is_boolean()) mu.ok = m["ok"].get<bool>();
    else mu.ok = mu.verdict == "killed" || mu.verdict == "not-a-bug" || starts_with(mu.verdict, "spared");
    out.push_back(std::move(mu));
  }
  return out;
}

std::string results_json(const Report& report) {
  json j;
  j["schema"] = kResultsSchema;
  j["generator"] = kToolVersion;
  j["title"] = report.title;
  j["conforming"] = report.conforming;
  j["run"] = report.run;
  j["notes"] = report.notes;

  j["implementations"] = json::array();
  for (const auto& impl : report.impls) {
    json i;
    i["name"] = impl.name;
    i["available"] = impl.available;
    i["selected"] = impl.selected;
    i["reason"] = impl.reason;
    i["version"] = impl.version;
    i["limits"] = impl.limits;
    i["capabilities"] = impl.capabilities;
    i["conforming"] = impl.conforming;
    i["not_conforming_because"] = impl.why_not;
    i["core_failures"] = impl.core_failures;
    i["strict_warnings"] = impl.strict_warnings;
    i["qoi_findings"] = impl.qoi_findings;
    i["not_built_sources"] = impl.not_built_sources;
    json counts = json::object();
    for (auto v : kAllVerdicts) {
      auto it = impl.counts.find(v);
      counts[to_string(v)] = it == impl.counts.end() ? 0 : it->second;
    }
    i["counts"] = counts;
    json rows = json::object();
    for (const auto& [status, n] : impl.row_counts) rows[to_string(status)] = n;
    i["requirements"] = rows;
    j["implementations"].push_back(i);
  }

  j["tests"] = json::array();
  for (const auto& t : report.tests) {
    json o;
    o["implementation"] = t.impl;
    o["name"] = t.name;
    o["ctest_name"] = t.ctest_name;
    o["verdict"] = to_string(t.verdict);
    o["detail"] = t.detail;
    o["tier"] = t.tier;
    o["kind"] = t.kind;
    o["group"] = t.group;
    o["source"] = t.source;
    o["origin"] = t.origin;
    o["requirements"] = t.requirements;
    o["stable_name"] = t.stable;
    o["paragraph"] = t.paragraph;
    o["mapping"] = t.mapping;
    if (!t.unknown_ids.empty()) o["unknown_ids"] = t.unknown_ids;
    o["duration_s"] = t.duration ? json(*t.duration) : json(nullptr);
    o["timeout_s"] = t.timeout ? json(*t.timeout) : json(nullptr);
    o["exit_status"] = t.exit_status ? json(*t.exit_status) : json(nullptr);
    o["seed"] = t.seed;
    if (!t.config.empty()) o["config"] = t.config;
    o["headline"] = t.headline;
    o["output_excerpt"] = t.excerpt;
    j["tests"].push_back(o);
  }
  j["tests_not_run"] = report.tests_not_run;

  j["requirements"] = json::array();
  for (const auto& row : report.rows) {
    json r;
    r["id"] = row.id;
    r["clause"] = row.clause;
    r["ref"] = row.ref;
    r["paragraphs"] = row.paras;
    r["kind"] = row.kind;
    r["tier"] = row.tier;
    r["testable"] = row.testable;
    r["summary"] = row.summary;
    json per = json::object();
    for (const auto& impl : report.impls) {
      const auto& cell = report.cells.at(row.id).at(impl.name);
      json tests = json::array();
      for (auto i : cell.tests) tests.push_back(report.tests[i].name);
      per[impl.name] = {{"status", to_string(cell.status)}, {"tests", tests}};
    }
    r["implementations"] = per;
    j["requirements"].push_back(r);
  }

  std::set<std::string> covered;
  for (const auto& t : report.tests)
    for (const auto& id : t.requirements) covered.insert(id);
  json untested = json::array();
  int testable = 0, testable_covered = 0;
  for (const auto& row : report.rows) {
    if (!row.testable) continue;
    ++testable;
    if (covered.count(row.id)) ++testable_covered;
    else untested.push_back(row.id);
  }
  j["coverage"] = {{"rows", report.rows.size()},
                   {"testable_rows", testable},
                   {"testable_rows_with_tests", testable_covered},
                   {"rows_with_tests", covered.size()},  // including design-rule rows a test cites
                   {"untested_rows", untested},
                   {"catalog", report.catalog_path}};
  json unmapped = json::array();
  for (auto i : report.unmapped) unmapped.push_back(report.tests[i].impl + "/" + report.tests[i].name);
  j["unmapped_tests"] = unmapped;

  j["build_failures"] = json::array();
  for (const auto& f : report.build_failures)
    j["build_failures"].push_back({{"implementation", f.impl.empty() ? json(nullptr) : json(f.impl)},
                                   {"source", f.source.empty() ? json(nullptr) : json(f.source)},
                                   {"executable", f.executable},
                                   {"log", f.log}});
  if (report.mutants) j["mutants"] = *report.mutants;
  if (report.bench) j["bench"] = *report.bench;
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace report
