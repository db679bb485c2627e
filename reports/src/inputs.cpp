#include "inputs.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include <pugixml.hpp>

#include "classify.hpp"
#include "util.hpp"

namespace report {
namespace fs = std::filesystem;

namespace {

struct Listed {  // one test of tests.json
  std::map<std::string, std::string> labels;
  std::optional<double> timeout;
};

std::optional<json> read_json(const fs::path& path, Report& report, bool required) {
  if (!fs::is_regular_file(path)) {
    if (required) report.notes.push_back(path.filename().string() + " is missing");
    return std::nullopt;
  }
  try {
    return json::parse(read_file(path));
  } catch (const std::exception& e) {
    report.notes.push_back(path.filename().string() + " is unreadable: " + e.what());
    return std::nullopt;
  }
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::map<std::string, Listed> read_listing(const json& listing) {
  std::map<std::string, Listed> tests;
  if (!listing.contains("tests") || !listing["tests"].is_array()) return tests;
  for (const auto& t : listing["tests"]) {
    Listed entry;
    for (const auto& prop : t.value("properties", json::array())) {
      const auto name = str(prop, "name");
      if (name == "LABELS" && prop.contains("value") && prop["value"].is_array()) {
        for (const auto& label : prop["value"]) {
          if (!label.is_string()) continue;
          auto text = label.get<std::string>();
          auto eq = text.find('=');
          if (eq != std::string::npos) entry.labels[text.substr(0, eq)] = text.substr(eq + 1);
        }
      } else if (name == "TIMEOUT" && prop.contains("value") && prop["value"].is_number()) {
        entry.timeout = prop["value"].get<double>();
      }
    }
    tests[str(t, "name")] = entry;
  }
  return tests;
}

void read_catalog(const fs::path& path, Report& report) {
  json catalog;
  try {
    catalog = json::parse(read_file(path));
  } catch (const std::exception& e) {
    throw std::runtime_error("requirement catalog " + path.string() + ": " + e.what());
  }
  for (const auto& c : catalog.at("clauses"))
    report.clauses.push_back({c.at("key").get<std::string>(), c.at("title").get<std::string>()});
  for (const auto& r : catalog.at("rows")) {
    Row row;
    row.id = r.at("id").get<std::string>();
    row.clause = r.at("clause").get<std::string>();
    row.ref = str(r, "ref");
    row.kind = str(r, "kind");
    row.tier = str(r, "tier");
    row.summary = str(r, "summary");
    row.testable = r.value("testable", true);
    for (const auto& p : r.value("paras", json::array())) row.paras.push_back(p.get<int>());
    report.rows.push_back(row);
  }
}

// Test cases of a source that never reached CTest, one Test each; a source whose cases
// cannot be read becomes a single entry named after the file.
std::vector<Test> tests_from_source(const Report& report, const std::string& impl,
                                    const std::string& source, const std::string& group,
                                    Verdict verdict, const std::string& detail,
                                    const std::string& log) {
  std::vector<SourceCase> cases;
  const bool compile_fail = source.size() > 17 &&
                            source.compare(source.size() - 17, 17, ".compile.fail.cpp") == 0;
  const fs::path path = fs::path(report.source_dir) / source;
  std::string why_unnamed = "the source " + path.string() + " is missing";
  try {
    cases = cases_in_source(read_file(path), compile_fail);
    why_unnamed = "no test case names found in " + source;
  } catch (const std::exception&) {
  }
  if (cases.empty()) cases.push_back({"(" + source + ")", "unlabelled", "unlabelled"});
  std::vector<Test> tests;
  for (const auto& c : cases) {
    Test t;
    t.impl = impl;
    t.name = c.name;
    t.verdict = verdict;
    t.detail = detail;
    t.tier = c.tier;
    t.kind = c.kind;
    t.group = group;
    t.source = source;
    t.origin = "source";
    if (!log.empty()) {
      t.excerpt = excerpt_of(log, 4000);
      t.headline = headline_of(log);
    }
    if (c.name.front() == '(') t.detail += "; " + why_unnamed;
    tests.push_back(t);
  }
  return tests;
}

}  // namespace

void load_inputs(const Options& options, Report& report) {
  const fs::path& dir = options.in_dir;
  report.in_dir = dir.string();
  report.title = options.title;
  report.catalog_path = options.catalog.string();
  read_catalog(options.catalog, report);

  if (auto run = read_json(dir / "run.json", report, true); run && run->is_object()) report.run = *run;
  report.source_dir = !options.source_dir.empty() ? options.source_dir.string()
                      : report.run.contains("source_dir") ? str(report.run, "source_dir")
                                                          : std::string(SAFERECL_SOURCE_DIR);
  const std::string run_seed = report.run.contains("seed") ? report.run["seed"].dump() : "";

  std::set<std::string> selected;
  if (report.run.contains("implementations") && report.run["implementations"].is_array())
    for (const auto& n : report.run["implementations"]) selected.insert(n.get<std::string>());
  if (auto impls = read_json(dir / "implementations.json", report, true); impls && impls->is_array()) {
    for (const auto& i : *impls) {
      Implementation impl;
      impl.name = str(i, "name");
      impl.available = i.value("available", false);
      impl.reason = str(i, "reason");
      impl.version = str(i, "version");
      impl.limits = str(i, "limits");
      for (const auto& c : i.value("capabilities", json::array()))
        impl.capabilities.push_back(c.get<std::string>());
      impl.selected = selected.empty() || selected.count(impl.name) > 0;
      report.impls.push_back(impl);
    }
  }

  std::map<std::string, Listed> listing;
  bool have_listing = false;
  if (auto l = read_json(dir / "tests.json", report, false)) {
    listing = read_listing(*l);
    have_listing = l->contains("tests");  // the driver writes {} when CTest listed nothing
  }

  // Build failures: the compiler's words per implementation and source.
  if (auto failures = read_json(dir / "build-failures.json", report, false); failures && failures->is_array()) {
    for (const auto& f : *failures) {
      BuildFailure b;
      b.impl = str(f, "implementation");
      b.source = str(f, "source");
      b.executable = str(f, "executable");
      b.log = str(f, "log");
      report.build_failures.push_back(b);
    }
  }

  // CTest's verdicts.
  std::set<std::string> in_junit;
  const fs::path junit = dir / "junit.xml";
  if (fs::is_regular_file(junit)) {
    pugi::xml_document doc;
    auto parsed = doc.load_file(junit.c_str());
    if (!parsed)
      report.notes.push_back(std::string("junit.xml is damaged (") + parsed.description() +
                             " at byte " + std::to_string(parsed.offset) +
                             "); the tests before that point are reported");
    for (const auto& node : doc.select_nodes("//testcase")) {
      const auto tc = node.node();
      Test t;
      t.ctest_name = tc.attribute("name").as_string();
      in_junit.insert(t.ctest_name);
      const auto it = listing.find(t.ctest_name);
      const Listed* listed = it != listing.end() ? &it->second : nullptr;
      auto label = [&](const char* key, const std::string& fallback) {
        if (listed) {
          auto l = listed->labels.find(key);
          if (l != listed->labels.end()) return l->second;
        }
        return fallback;
      };
      const auto slash = t.ctest_name.find('/');
      t.impl = label("impl", slash == std::string::npos ? "" : t.ctest_name.substr(0, slash));
      t.name = starts_with(t.ctest_name, t.impl + "/") ? t.ctest_name.substr(t.impl.size() + 1)
                                                       : t.ctest_name;
      t.tier = label("tier", "unlabelled");
      t.kind = label("kind", "unlabelled");
      t.group = label("group", "");
      t.source = label("src", "");

      CaseRecord record;
      record.status = tc.attribute("status").as_string();
      record.skipped = static_cast<bool>(tc.child("skipped"));
      record.skip_message = tc.child("skipped").attribute("message").as_string();
      record.failed = static_cast<bool>(tc.child("failure"));
      record.output = tc.child("system-out").text().as_string();
      record.kind = t.kind;
      record.time = tc.attribute("time").as_double();
      if (listed) record.timeout = listed->timeout;
      const auto c = classify(record);
      t.verdict = c.verdict;
      t.detail = c.detail;
      t.exit_status = c.exit_status;
      t.duration = record.time;
      t.timeout = record.timeout;
      seed_and_config(record.output, t.seed, t.config);
      if (t.seed.empty()) t.seed = run_seed;
      if (t.verdict != Verdict::Pass) {
        t.headline = headline_of(record.output);
        t.excerpt = excerpt_of(record.output);
      }
      report.tests.push_back(std::move(t));
    }
  } else {
    report.notes.push_back("junit.xml is missing: CTest did not run");
  }
  for (const auto& [name, listed] : listing)
    if (!in_junit.count(name)) ++report.tests_not_run;

  // Sources that never reached CTest: not applicable, not built, or built into an
  // executable that does not exist.
  std::set<std::pair<std::string, std::string>> listed_sources;  // (impl, source)
  for (const auto& [name, listed] : listing) {
    auto impl = listed.labels.find("impl"), src = listed.labels.find("src");
    if (impl != listed.labels.end() && src != listed.labels.end())
      listed_sources.insert({impl->second, src->second});
  }
  std::set<std::pair<std::string, std::string>> covered;  // failures matched to a source
  auto manifest = read_json(dir / "manifest.json", report, false);
  if (manifest && manifest->is_array()) {
    for (const auto& m : *manifest) {
      const auto impl = str(m, "implementation"), source = str(m, "source"),
                 status = str(m, "status"), group = str(m, "group"), reason = str(m, "reason");
      std::string log;
      for (const auto& f : report.build_failures)
        if (f.impl == impl && f.source == source) {
          log += f.log + "\n";
          covered.insert({impl, source});
        }
      std::vector<Test> found;
      if (status == "not-applicable") {
        found = tests_from_source(report, impl, source, group, Verdict::NotApplicable,
                                  reason.empty() ? "not applicable" : reason, "");
      } else if (status == "not-built") {
        found = tests_from_source(report, impl, source, group, Verdict::NotBuilt,
                                  reason.empty() ? "does not compile" : reason, log);
      } else if (status == "built" && have_listing && !listed_sources.count({impl, source})) {
        // Its executable was not built (a harness or link failure) or could not list its tests.
        std::string harness;
        for (const auto& f : report.build_failures)
          if (f.impl.empty() || f.impl == impl) harness += f.log + "\n";
        found = tests_from_source(report, impl, source, group, Verdict::NotBuilt,
                                  "its executable " + str(m, "executable") +
                                      " was not built or could not list its tests",
                                  log.empty() ? harness : log);
      } else if (status == "built" && !have_listing && !log.empty()) {
        found = tests_from_source(report, impl, source, group, Verdict::NotBuilt,
                                  "does not compile", log);
      }
      for (auto& t : found) {
        if (t.seed.empty()) t.seed = run_seed;
        report.tests.push_back(std::move(t));
      }
    }
  } else {
    report.notes.push_back("manifest.json is missing: sources that never reached CTest are not shown");
  }
  // Failures of one implementation's source that the manifest does not mention.
  for (const auto& f : report.build_failures) {
    if (f.impl.empty() || f.source.empty() || covered.count({f.impl, f.source})) continue;
    covered.insert({f.impl, f.source});
    for (auto& t : tests_from_source(report, f.impl, f.source, "", Verdict::NotBuilt,
                                     "does not compile", f.log))
      report.tests.push_back(std::move(t));
  }

  report.mutants = read_json(dir / "mutants.json", report, false);
  report.bench = read_json(dir / "bench.json", report, false);
}

}  // namespace report
