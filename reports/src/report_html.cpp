// report.html: one self-contained page (inline CSS, no script, no external resource).
#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "classify.hpp"
#include "util.hpp"
#include "writers.hpp"

namespace report {
namespace {

std::string h(std::string_view s) { return html_escape(s); }

const char* kStyle = R"CSS(
:root{--fg:#1f2328;--muted:#59636e;--line:#d0d7de;--head:#f6f8fa;
--ok:#116329;--ok-bg:#d2f4d9;--bad:#a40e26;--bad-bg:#ffd8d3;--warn:#7d4e00;--warn-bg:#fff0b3;
--qoi:#0550ae;--qoi-bg:#d8ecff;--na:#59636e;--na-bg:#eceff2;--crash:#fff;--crash-bg:#8c0a1f;
--to:#953800;--to-bg:#ffe2c7;--nb:#5c3d00;--nb-bg:#ead9c0}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);
margin:0 auto;max-width:1500px;padding:0 1.2rem 3rem}
h1{font-size:1.5rem;margin:1rem 0 .3rem}h2{font-size:1.2rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
h3{font-size:1rem;margin:1.2rem 0 .4rem}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
nav a{margin-right:.9rem}
.meta,.muted,small{color:var(--muted)}
table{border-collapse:collapse;margin:.4rem 0}
th,td{border:1px solid var(--line);padding:.25rem .5rem;vertical-align:top;text-align:left}
thead th{background:var(--head)}
td.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre,.tname{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#f6f8fa;border:1px solid var(--line);padding:.5rem;margin:.3rem 0;max-height:26rem;
overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.banner{display:inline-block;font-size:1.15rem;font-weight:700;padding:.3rem .8rem;border-radius:6px;margin:.3rem 0}
.badge{display:inline-block;font-size:11.5px;font-weight:700;padding:0 .35rem;border-radius:4px;white-space:nowrap}
.s-ok{background:var(--ok-bg);color:var(--ok)}.s-bad{background:var(--bad-bg);color:var(--bad)}
.s-warn{background:var(--warn-bg);color:var(--warn)}.s-qoi{background:var(--qoi-bg);color:var(--qoi)}
.s-na{background:var(--na-bg);color:var(--na)}.s-unavail{background:repeating-linear-gradient(45deg,#f3f4f6 0 6px,#e6e8eb 6px 12px);color:var(--na)}
.s-untested{background:#fff;color:#8c959f;font-style:italic}td.s-untested{box-shadow:inset 0 0 0 2px #fff,inset 0 0 0 3px #d8dee4}
.s-nt{background:#fafbfc;color:#afb8c1;font-style:italic}
.v-pass{background:var(--ok-bg);color:var(--ok)}.v-fail{background:var(--bad-bg);color:var(--bad)}
.v-timeout{background:var(--to-bg);color:var(--to)}.v-crash{background:var(--crash-bg);color:var(--crash)}
.v-na{background:var(--na-bg);color:var(--na)}.v-notbuilt{background:var(--nb-bg);color:var(--nb)}
.matrix{width:100%}
.matrix thead th{position:sticky;top:0;z-index:2;background:var(--head)}
.matrix th.impl{min-width:8.5rem}
.matrix td.id{font-weight:700;white-space:nowrap}
.matrix td.req{max-width:34rem}
.matrix td.tier{white-space:nowrap;color:var(--muted);font-size:12px}
.matrix tr.clause th{background:#eef1f4;font-weight:600;position:static}
.matrix tr.clause .cov{font-weight:400;color:var(--muted);margin-left:.6rem}
.matrix td.cell{padding:0;min-width:8.5rem}
.cell>span,.cell summary{display:block;padding:.25rem .5rem;font-weight:600;white-space:nowrap}
.cell summary{cursor:pointer;list-style:none}.cell summary::-webkit-details-marker{display:none}
.cell summary::after{content:" \25B8";font-weight:400}.cell details[open] summary::after{content:" \25BE"}
.cell small{font-weight:400;color:inherit;opacity:.8}
.matrix-wrap{position:relative}
/* An open cell shows its tests in a panel across the whole matrix, under the cell, so that
   opening one never reflows the columns; click the cell again to close it. */
.cellbody{position:absolute;left:0;right:0;z-index:3;background:#fff;color:var(--fg);font-weight:400;
white-space:normal;padding:.5rem .8rem;border:2px solid #8c959f;border-radius:6px;
box-shadow:0 8px 24px rgba(31,35,40,.25);max-height:75vh;overflow:auto}
ul.tests{list-style:none;padding:0;margin:.2rem 0}
ul.tests>li{margin:.35rem 0;padding-top:.3rem;border-top:1px dotted var(--line)}
ul.tests>li:first-child{border-top:0}
.detail{margin:.15rem 0}
.legend span.badge{margin-right:.35rem}
.legend td{vertical-align:middle}
.kill{text-align:center;font-weight:700}
.bench td{min-width:7rem}.bench td small{white-space:normal}
dl.run{display:grid;grid-template-columns:max-content auto;gap:.15rem 1rem}dl.run dt{font-weight:600}dl.run dd{margin:0}
@page{size:A4 landscape;margin:12mm}
@media print{body{max-width:none;font-size:10pt;padding:0}nav{display:none}
.matrix thead th{position:static}pre{max-height:none}.cellbody{display:none}
.s-unavail{background:#e6e8eb}td.s-untested{box-shadow:none}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
tr{break-inside:avoid}h2{break-after:avoid}}
)CSS";

std::string draft_link(const Row& row) {
  static const std::regex ref(R"(\[([a-z.]+)\](?:/([0-9]+))?)");
  std::smatch m;
  if (!std::regex_search(row.ref, m, ref)) return h(row.ref);
  std::string url = "https://eel.is/c++draft/" + m[1].str() + (m[2].matched ? "#" + m[2].str() : "");
  return "<a href=\"" + h(url) + "\" title=\"the current working draft\">" + h(row.ref) + "</a>";
}

std::string cell_id(const std::string& impl, const std::string& row) {
  return "cell-" + slug(impl) + "-" + slug(row);
}

std::string badge(Verdict v) {
  return std::string("<span class=\"badge ") + css_class(v) + "\">" + to_string(v) + "</span>";
}

std::string status_badge(Status s) {
  return std::string("<span class=\"badge ") + css_class(s) + "\">" + label(s) + "</span>";
}

std::string seconds(const std::optional<double>& s) {
  if (!s) return "";
  return fixed(*s, *s < 10 ? 2 : 1) + " s";
}

// One test inside a cell or a list: verdict, name, facts, why, and the output for non-passes.
std::string test_item(const Test& t, bool with_impl) {
  std::string s = "<li>" + badge(t.verdict) + " <span class=\"tname\">" +
                  h((with_impl ? t.impl + "/" : std::string()) + t.name) + "</span><br><small>";
  std::vector<std::string> facts = {t.tier, t.kind};
  if (t.duration) facts.push_back(seconds(t.duration));
  if (t.timeout && is_failing(t.verdict)) facts.push_back("timeout " + seconds(t.timeout));
  if (!t.source.empty()) facts.push_back(t.source);
  if (!t.seed.empty() && t.kind == "stress") facts.push_back("seed " + t.seed);
  if (t.mapping == "paragraph") facts.push_back("mapped by paragraph");
  for (size_t i = 0; i < facts.size(); ++i) s += (i ? " · " : "") + h(facts[i]);
  s += "</small>";
  if (t.verdict != Verdict::Pass) {
    if (!t.detail.empty()) s += "<div class=\"detail\">" + h(t.detail) + "</div>";
    if (!t.headline.empty()) s += "<div class=\"detail\"><code>" + h(t.headline) + "</code></div>";
    if (!t.excerpt.empty()) s += "<pre>" + h(t.excerpt) + "</pre>";
  } else if (!t.config.empty()) {
    s += "<div class=\"detail\"><code>" + h(t.config) + "</code></div>";
  }
  return s + "</li>";
}

// The label of a cell with tests: the worst verdict among the tests that decide it.
std::string cell_label(const Report& report, const Cell& cell) {
  int pass = 0, total = 0;
  Verdict worst = Verdict::Pass;
  auto rank = [](Verdict v) {
    switch (v) {
      case Verdict::Crash: return 5;
      case Verdict::Timeout: return 4;
      case Verdict::Fail: return 3;
      case Verdict::NotBuilt: return 2;
      default: return 0;
    }
  };
  for (auto i : cell.tests) {
    const auto& t = report.tests[i];
    ++total;
    if (t.verdict == Verdict::Pass) ++pass;
    if (rank(t.verdict) > rank(worst)) worst = t.verdict;
  }
  std::string counts = " <small>" + std::to_string(pass) + "/" + std::to_string(total) + "</small>";
  switch (cell.status) {
    case Status::NonConforming: return std::string("&#x2717; ") + to_string(worst) + counts;
    case Status::Warning: return std::string("&#x26A0; warning: ") + to_string(worst) + counts;
    case Status::Qoi: return std::string("&#x2139; QoI: ") + to_string(worst) + counts;
    case Status::Conforming: return "&#x2713; pass" + counts;
    case Status::NotApplicable: return "n/a" + counts;
    default: return label(cell.status);
  }
}

void implementations_section(std::string& out, const Report& report) {
  out += "<section id=\"implementations\"><h2>Implementations</h2>\n<table><thead><tr>"
         "<th>implementation</th><th>verdict</th><th>core failures</th><th>strict warnings</th>"
         "<th>QoI findings</th>";
  for (auto v : kAllVerdicts) out += std::string("<th>") + badge(v) + "</th>";
  out += "<th>requirement rows</th><th>version · capabilities</th></tr></thead><tbody>\n";
  for (const auto& impl : report.impls) {
    out += "<tr id=\"impl-" + slug(impl.name) + "\"><th>" + h(impl.name) + "</th>";
    if (!impl.available) {
      // verdict, 3 tallies, the verdict counts, requirement rows, version
      out += "<td class=\"s-unavail\" colspan=\"" + std::to_string(6 + std::size(kAllVerdicts)) +
             "\">unavailable: " + h(impl.reason) + "</td></tr>\n";
      continue;
    }
    std::string why;
    for (const auto& w : impl.why_not) why += (why.empty() ? "" : "; ") + w;
    out += std::string("<td class=\"") + (impl.conforming ? "s-ok" : "s-bad") + "\"><b>" +
           (impl.conforming ? "&#x2713; conforming" : "&#x2717; NOT conforming") + "</b>" +
           (why.empty() ? "" : "<br><small>" + h(why) + "</small>") + "</td>";
    out += "<td class=\"num\">" + std::to_string(impl.core_failures) + "</td><td class=\"num\">" +
           std::to_string(impl.strict_warnings) + "</td><td class=\"num\">" +
           std::to_string(impl.qoi_findings) + "</td>";
    for (auto v : kAllVerdicts) {
      auto it = impl.counts.find(v);
      out += "<td class=\"num\">" + std::to_string(it == impl.counts.end() ? 0 : it->second) + "</td>";
    }
    out += "<td>";
    for (auto s : {Status::Conforming, Status::NonConforming, Status::Warning, Status::Qoi,
                   Status::NotApplicable, Status::Untested}) {
      auto it = impl.row_counts.find(s);
      if (it != impl.row_counts.end() && it->second > 0)
        out += status_badge(s) + "&nbsp;" + std::to_string(it->second) + " ";
    }
    std::string caps;
    for (const auto& c : impl.capabilities) caps += (caps.empty() ? "" : ", ") + c;
    out += "</td><td>" + h(impl.version) + (caps.empty() ? "" : "<br><small>" + h(caps) + "</small>") +
           (impl.limits.empty() ? "" : "<br><small>limits: " + h(impl.limits) + "</small>") +
           "</td></tr>\n";
  }
  out += "</tbody></table></section>\n";
}

void failures_section(std::string& out, const Report& report) {
  out += "<section id=\"failures\"><h2>Where it fails</h2>\n";
  bool any = false;
  for (auto [status, title] : {std::pair{Status::NonConforming, "Non-conforming requirements"},
                               std::pair{Status::Warning, "Strict-tier warnings"},
                               std::pair{Status::Qoi, "Quality-of-implementation findings"}}) {
    auto list = findings(report, status);
    if (list.empty()) continue;
    any = true;
    out += "<h3>" + std::string(title) + " (" + std::to_string(list.size()) + ")</h3>\n";
    out += "<table><thead><tr><th>implementation</th><th>row</th><th>paragraph</th>"
           "<th>failing tests (open the cell for the output)</th></tr></thead><tbody>\n";
    for (const auto& f : list) {
      out += "<tr><td>" + h(f.impl->name) + "</td><td><a href=\"#" +
             cell_id(f.impl->name, f.row->id) + "\"><b>" + h(f.row->id) + "</b></a></td><td>" +
             draft_link(*f.row) + "<br><small>" + h(f.row->summary) + "</small></td><td>";
      for (auto i : f.cell->tests) {
        const auto& t = report.tests[i];
        if (!is_failing(t.verdict)) continue;
        out += badge(t.verdict) + " <span class=\"tname\">" + h(t.name) + "</span>";
        if (!t.headline.empty()) out += "<br><small><code>" + h(t.headline) + "</code></small>";
        else if (!t.detail.empty()) out += "<br><small>" + h(t.detail) + "</small>";
        out += "<br>";
      }
      out += "</td></tr>\n";
    }
    out += "</tbody></table>\n";
  }
  std::vector<size_t> loose;
  for (auto i : report.unmapped)
    if (is_failing(report.tests[i].verdict)) loose.push_back(i);
  if (!loose.empty()) {
    any = true;
    out += "<h3>Failing tests with no requirement row (" + std::to_string(loose.size()) +
           ")</h3><p class=\"muted\">Their names cite no row id of the catalog and no known "
           "paragraph; see <a href=\"#other-tests\">other tests</a> for the output.</p><ul>";
    for (auto i : loose) {
      const auto& t = report.tests[i];
      out += "<li>" + badge(t.verdict) + " <span class=\"tname\">" + h(t.impl + "/" + t.name) +
             "</span> <small>" + h(t.headline.empty() ? t.detail : t.headline) + "</small></li>";
    }
    out += "</ul>\n";
  }
  if (!report.build_failures.empty()) {
    any = true;
    out += "<p>" + std::to_string(report.build_failures.size()) +
           " build failure(s): see <a href=\"#not-built\">not built</a>.</p>\n";
  }
  if (!any) out += "<p class=\"s-ok banner\">&#x2713; Nothing failed.</p>\n";
  out += "</section>\n";
}

void legend(std::string& out) {
  out += "<details class=\"legend\"><summary>How to read the matrix</summary><table><tbody>";
  auto row = [&](const std::string& b, const std::string& text) {
    out += "<tr><td>" + b + "</td><td>" + text + "</td></tr>";
  };
  row(status_badge(Status::Conforming), "every applicable test of the row passed");
  row(status_badge(Status::NonConforming),
      "a <b>core</b> or <b>cxx29</b> test failed, timed out, crashed or did not compile: the "
      "implementation does not conform");
  row(status_badge(Status::Warning), "only a <b>strict</b> test failed (a literal reading of the "
                                     "wording that plausible implementations may not meet)");
  row(status_badge(Status::Qoi), "only a <b>qoi</b> test failed (quality of implementation, not normative)");
  row(status_badge(Status::NotApplicable), "the adapter lacks a capability these tests need");
  row(status_badge(Status::Untested), "a testable row of the catalog that no test covers yet (a gap in the suite)");
  row(status_badge(Status::NotTestable), "a design rule or undefined behaviour: nothing a test may check");
  row(status_badge(Status::Unavailable), "the implementation was not found on this machine (reason in its column)");
  out += "</tbody></table><p>Test verdicts: ";
  for (auto v : kAllVerdicts) out += badge(v) + " ";
  out += "— TIMEOUT is either the test's watchdog (a hang with a state dump) or CTest's TIMEOUT; "
         "CRASH is a signal or a sanitizer's deadly signal; FAIL includes sanitizer reports. "
         "Click a cell to see its tests, the paragraph and the failure output.</p></details>\n";
}

void matrix_section(std::string& out, const Report& report) {
  out += "<section id=\"matrix\"><h2>Requirements &times; implementations</h2>\n";
  legend(out);
  out += "<div class=\"matrix-wrap\"><table class=\"matrix\"><thead><tr><th>row</th><th>requirement</th><th>tier · kind</th>";
  for (const auto& impl : report.impls) {
    if (impl.available)
      out += "<th class=\"impl\">" + h(impl.name) + "<br><small>" + h(impl.version) + "</small></th>";
    else
      out += "<th class=\"impl s-unavail\" title=\"" + h(impl.reason) + "\">" + h(impl.name) +
             "<br><small>unavailable</small></th>";
  }
  out += "</tr></thead><tbody>\n";
  const auto columns = std::to_string(3 + report.impls.size());
  for (const auto& clause : report.clauses) {
    int testable = 0, tested = 0;
    for (const auto& row : report.rows) {
      if (row.clause != clause.key || !row.testable) continue;
      ++testable;
      bool has = false;
      for (const auto& [impl, cell] : report.cells.at(row.id)) has = has || !cell.tests.empty();
      tested += has ? 1 : 0;
    }
    out += "<tr class=\"clause\" id=\"clause-" + slug(clause.key) + "\"><th colspan=\"" + columns +
           "\">[" + h(clause.key) + "] " + h(clause.title) + "<span class=\"cov\">" +
           std::to_string(tested) + " of " + std::to_string(testable) +
           " testable rows have tests</span></th></tr>\n";
    for (const auto& row : report.rows) {
      if (row.clause != clause.key) continue;
      out += "<tr id=\"req-" + slug(row.id) + "\"><td class=\"id\">" + h(row.id) +
             "</td><td class=\"req\">" + draft_link(row) + "<br>" + h(row.summary) +
             "</td><td class=\"tier\">" + h(row.tier) + "<br>" + h(row.kind) + "</td>";
      for (const auto& impl : report.impls) {
        const auto& cell = report.cells.at(row.id).at(impl.name);
        out += "<td id=\"" + cell_id(impl.name, row.id) + "\" class=\"cell " + css_class(cell.status) +
               "\" data-status=\"" + to_string(cell.status) + "\">";
        if (cell.tests.empty() || cell.status == Status::Unavailable) {
          out += "<span>" + std::string(cell.status == Status::Unavailable ? "&ndash;" : label(cell.status)) +
                 "</span></td>";
          continue;
        }
        out += "<details><summary>" + cell_label(report, cell) + "</summary><div class=\"cellbody\">";
        out += "<div><b>" + h(row.id) + "</b> " + draft_link(row) + " — " + h(row.summary) +
               " <small>(" + h(row.tier) + ", " + h(row.kind) + ")</small></div><ul class=\"tests\">";
        // Failures first.
        std::vector<size_t> order = cell.tests;
        std::stable_partition(order.begin(), order.end(),
                              [&](size_t i) { return is_failing(report.tests[i].verdict); });
        for (auto i : order) out += test_item(report.tests[i], false);
        out += "</ul></div></details></td>";
      }
      out += "</tr>\n";
    }
  }
  out += "</tbody></table></div></section>\n";
}

void coverage_section(std::string& out, const Report& report) {
  out += "<section id=\"coverage\"><h2>Catalog coverage</h2>\n<p>Rows of the requirement catalog "
         "(<code>" + h(report.catalog_path) + "</code>) that the suite covers, per clause. "
         "Untested rows are gaps in the suite, not in the implementations.</p>\n"
         "<table><thead><tr><th>clause</th><th>rows</th><th>testable</th><th>with tests</th>"
         "<th>untested rows</th></tr></thead><tbody>\n";
  int all_rows = 0, all_testable = 0, all_tested = 0;
  for (const auto& clause : report.clauses) {
    int rows = 0, testable = 0, tested = 0;
    std::string untested;
    for (const auto& row : report.rows) {
      if (row.clause != clause.key) continue;
      ++rows;
      if (!row.testable) continue;
      ++testable;
      bool has = false;
      for (const auto& [impl, cell] : report.cells.at(row.id)) has = has || !cell.tests.empty();
      if (has) ++tested;
      else untested += "<a href=\"#req-" + slug(row.id) + "\">" + h(row.id) + "</a> ";
    }
    all_rows += rows;
    all_testable += testable;
    all_tested += tested;
    out += "<tr><td><a href=\"#clause-" + slug(clause.key) + "\">[" + h(clause.key) + "]</a></td>"
           "<td class=\"num\">" + std::to_string(rows) + "</td><td class=\"num\">" +
           std::to_string(testable) + "</td><td class=\"num " +
           (tested == testable ? "s-ok" : tested == 0 ? "s-untested" : "") + "\">" +
           std::to_string(tested) + "</td><td>" + untested + "</td></tr>\n";
  }
  out += "<tr><th>all</th><th class=\"num\">" + std::to_string(all_rows) + "</th><th class=\"num\">" +
         std::to_string(all_testable) + "</th><th class=\"num\">" + std::to_string(all_tested) +
         "</th><th></th></tr></tbody></table></section>\n";
}

void not_built_section(std::string& out, const Report& report) {
  std::map<std::pair<std::string, std::string>, std::vector<const Test*>> sources;
  for (const auto& t : report.tests)
    if (t.verdict == Verdict::NotBuilt) sources[{t.impl, t.source}].push_back(&t);
  if (sources.empty() && report.build_failures.empty()) return;
  out += "<section id=\"not-built\"><h2>Not built</h2>\n<p>Sources that did not compile against "
         "an implementation cost only their own tests; each of their test cases is a NOT BUILT "
         "row above. A failure outside the test sources (the harness, a link step) breaks every "
         "implementation.</p>\n";
  for (const auto& f : report.build_failures) {
    out += "<details><summary><b>" +
           h(f.impl.empty() ? std::string("every implementation (harness)") : f.impl) + "</b>: <code>" +
           h(f.source.empty() ? f.executable : f.source) + "</code>";
    auto it = sources.find({f.impl, f.source});
    if (it != sources.end())
      out += " <small>(" + std::to_string(it->second.size()) + " test case(s))</small>";
    out += "</summary>";
    if (it != sources.end()) {
      out += "<ul>";
      for (const auto* t : it->second) out += "<li class=\"tname\">" + h(t->name) + "</li>";
      out += "</ul>";
    }
    out += "<pre>" + h(excerpt_of(f.log, 12000)) + "</pre></details>\n";
  }
  std::set<std::pair<std::string, std::string>> shown;
  for (const auto& f : report.build_failures) shown.insert({f.impl, f.source});
  for (const auto& [key, tests] : sources) {
    if (shown.count(key)) continue;
    out += "<details><summary><b>" + h(key.first) + "</b>: <code>" + h(key.second) + "</code> <small>(" +
           h(tests.front()->detail) + ")</small></summary><ul>";
    for (const auto* t : tests) out += "<li class=\"tname\">" + h(t->name) + "</li>";
    out += "</ul></details>\n";
  }
  out += "</section>\n";
}

void other_tests_section(std::string& out, const Report& report) {
  if (report.unmapped.empty()) return;
  out += "<section id=\"other-tests\"><h2>Tests with no requirement row</h2>\n<p class=\"muted\">"
         "A test name should start with the stable name and paragraph and cite a row id "
         "(e.g. <code>saferecl.hp.holder.mem/5 H30: ...</code>).</p><ul class=\"tests\">";
  for (auto i : report.unmapped) out += test_item(report.tests[i], true);
  out += "</ul></section>\n";
}

void mutants_section(std::string& out, const Report& report) {
  if (!report.mutants) return;
  const auto list = mutants_of(*report.mutants);
  out += "<section id=\"mutants\"><h2>Mutants</h2>\n<p class=\"muted\">Each mutant is the "
         "reference implementation with one deliberate bug; the battery must kill it (some test "
         "fails) in the sanitizer tier the mutant catalog names, and must spare the entries "
         "marked not-a-bug. The dots show which requirement rows' tests killed it.</p>\n";
  // The kill matrix: mutants x requirement rows of the killing tests, in catalog order.
  std::map<std::string, std::set<std::string>> kills;  // mutant -> row ids
  for (const auto& m : list)
    for (const auto& [test, time] : m.killed_by)
      for (const auto& id : parse_test_name(test).ids) kills[m.id].insert(id);
  std::vector<std::string> ids;
  for (const auto& row : report.rows)
    for (const auto& [mutant, rows] : kills)
      if (rows.count(row.id) && std::find(ids.begin(), ids.end(), row.id) == ids.end())
        ids.push_back(row.id);
  out += "<table><thead><tr><th>mutant</th><th>what it breaks</th><th>tier</th><th>verdict</th>"
         "<th>first kill</th>";
  for (const auto& id : ids) out += "<th><a href=\"#req-" + slug(id) + "\">" + h(id) + "</a></th>";
  out += "<th>expected killers</th><th>killing tests</th></tr></thead><tbody>\n";
  for (const auto& m : list) {
    out += "<tr id=\"mutant-" + slug(m.id) + "\"><th>" + h(m.id) + "</th><td>" + h(m.description) +
           "</td><td>" + h(m.tier) + "</td><td class=\"" + (m.ok ? "s-ok" : "s-bad") + "\"><b>" +
           h(m.verdict) + "</b></td><td class=\"num\">" +
           (m.first_kill ? fixed(*m.first_kill, 1) + " s" : std::string()) + "</td>";
    for (const auto& rid : ids)
      out += kills[m.id].count(rid) ? "<td class=\"kill s-ok\">&#x25CF;</td>" : "<td></td>";
    std::string expected, killing;
    for (const auto& e : m.expected) expected += "<code>" + h(e) + "</code><br>";
    for (const auto& [test, time] : m.killed_by)
      killing += "<span class=\"tname\">" + h(test) + "</span>" +
                 (time ? " <small>" + fixed(*time, 1) + " s</small>" : std::string()) + "<br>";
    out += "<td><small>" + expected + "</small></td><td><small>" + killing + "</small></td></tr>\n";
  }
  out += "</tbody></table></section>\n";
}

void bench_section(std::string& out, const Report& report) {
  if (!report.bench) return;
  const BenchTable table = bench_table(*report.bench);
  out += "<section id=\"bench\"><h2>Benchmarks</h2>\n<p class=\"muted\">Median time per operation "
         "and, under it, the ratio to the reference implementation measured in the same run "
         "(lower is faster), from the optimized tier. Time is CPU time per operation and "
         "thread, or wall-clock time (<i>wall</i>) for cases that block; a cell that is not a "
         "number says why (hover for the reason).";
  if (!table.setup.empty()) out += "<br>" + h(table.setup) + ".";
  out += "</p><table class=\"bench\"><thead><tr><th>benchmark</th><th>threads</th>";
  for (const auto& i : table.impls) {
    auto why = table.unavailable.find(i);
    out += "<th>" + h(i) + (why == table.unavailable.end() ? "" : "<br><small>" + h(why->second) + "</small>") +
           "</th>";
  }
  out += "</tr></thead><tbody>\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& [name, threads] = table.rows[r];
    out += "<tr id=\"bench-" + slug(name + "-" + std::to_string(threads)) + "\"><th>" + h(name) +
           (table.clocks[r] == "real" ? " <small>wall</small>" : "") + "</th><td class=\"num\">" +
           (threads ? std::to_string(threads) : "") + "</td>";
    for (const auto& i : table.impls) {
      auto it = table.cells.find({r, i});
      if (it == table.cells.end()) {
        out += "<td></td>";
        continue;
      }
      const BenchCell& c = it->second;
      if (c.status == "ok" && c.median_ns) {
        out += "<td class=\"num\" data-status=\"ok\">" + h(format_ns(*c.median_ns)) +
               (c.ratio ? "<br><small>" + fixed(*c.ratio, 2) + "&times;</small>" : "") +
               (c.repetitions && c.repetitions != table.repetitions
                    ? "<br><small>" + std::to_string(c.repetitions) + " reps</small>" : "") +
               "</td>";
        continue;
      }
      const char* css = c.status == "unavailable" || c.status == "not built" ? "s-unavail"
                        : c.status == "n/a"                                   ? "s-na"
                                                                              : "s-bad";
      const bool said_in_header = table.unavailable.count(i) != 0;
      out += std::string("<td class=\"") + css + "\" data-status=\"" + h(c.status) + "\" title=\"" +
             h(c.reason) + "\"><b>" + h(c.status) + "</b>" +
             (c.reason.empty() || said_in_header ? "" : "<br><small>" + h(c.reason) + "</small>") + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></section>\n";
}

void run_section(std::string& out, const Report& report) {
  out += "<section id=\"run\"><h2>Run</h2>\n<dl class=\"run\">";
  for (const auto& [key, value] : report.run.items()) {
    std::string text;
    if (value.is_string()) text = value.get<std::string>();
    else if (value.is_array()) {
      for (const auto& v : value) text += (text.empty() ? "" : ", ") + (v.is_string() ? v.get<std::string>() : v.dump());
    } else text = value.dump();
    out += "<dt>" + h(key) + "</dt><dd>" + h(text) + "</dd>";
  }
  out += "<dt>report directory</dt><dd>" + h(report.in_dir) + "</dd>";
  out += "<dt>tests not run</dt><dd>" + std::to_string(report.tests_not_run) +
         " (listed by CTest, absent from junit.xml)</dd>";
  out += "<dt>generator</dt><dd>" + std::string(kToolVersion) + "</dd></dl>\n";
  if (!report.notes.empty()) {
    out += "<h3>Notes on the inputs</h3><ul>";
    for (const auto& n : report.notes) out += "<li>" + h(n) + "</li>";
    out += "</ul>\n";
  }
  out += "<p class=\"muted\">Files next to this page: <code>results.json</code> (everything, "
         "machine-readable), <code>summary.md</code>, <code>junit.xml</code> (CTest), "
         "<code>build.log</code>, and the inputs (<code>tests.json</code>, <code>manifest.json</code>, "
         "<code>implementations.json</code>, <code>build-failures.json</code>, <code>run.json</code>).</p>"
         "</section>\n";
}

}  // namespace

std::string report_html(const Report& report) {
  const std::string title = report.title.empty() ? "saferecl conformance report" : report.title;
  std::string out;
  out.reserve(1 << 20);
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<meta name=\"generator\" content=\"" + std::string(kToolVersion) + "\">"
         "<title>" + h(title) + "</title><style>" + kStyle + "</style></head><body>\n";
  out += "<header><h1>" + h(title) + "</h1>";
  if (is_bench_only(report)) {  // ./conformance bench: no tests, so no verdict
    out += "<p class=\"meta\">" + h(run_line(report)) + "</p><nav><a href=\"#bench\">benchmarks</a>"
           "<a href=\"#run\">run</a></nav></header>\n<main>\n";
    bench_section(out, report);
    run_section(out, report);
    out += "</main></body></html>\n";
    return out;
  }
  out += std::string("<div id=\"overall\" class=\"banner ") + (report.conforming ? "s-ok" : "s-bad") +
         "\">" + (report.conforming ? "&#x2713; conforming" : "&#x2717; NOT conforming") + "</div>";
  std::string names;
  for (const auto& impl : report.impls)
    if (impl.available && impl.selected)
      names += (names.empty() ? "" : ", ") + impl.name + (impl.conforming ? " conforms" : " does not conform");
  out += " <span>" + h(names) + "</span>";
  out += "<p class=\"meta\">" + h(run_line(report)) + "</p>";
  out += "<nav><a href=\"#implementations\">implementations</a><a href=\"#failures\">where it fails</a>"
         "<a href=\"#matrix\">matrix</a><a href=\"#coverage\">coverage</a>";
  if (!report.build_failures.empty()) out += "<a href=\"#not-built\">not built</a>";
  if (!report.unmapped.empty()) out += "<a href=\"#other-tests\">other tests</a>";
  if (report.mutants) out += "<a href=\"#mutants\">mutants</a>";
  if (report.bench) out += "<a href=\"#bench\">benchmarks</a>";
  out += "<a href=\"#run\">run</a></nav></header>\n<main>\n";
  if (!report.notes.empty()) {
    out += "<p class=\"s-warn banner\" style=\"font-size:1rem\">&#x26A0; ";
    for (const auto& n : report.notes) out += h(n) + ". ";
    out += "</p>\n";
  }
  implementations_section(out, report);
  failures_section(out, report);
  matrix_section(out, report);
  coverage_section(out, report);
  not_built_section(out, report);
  other_tests_section(out, report);
  mutants_section(out, report);
  bench_section(out, report);
  run_section(out, report);
  out += "</main></body></html>\n";
  return out;
}

}  // namespace report
