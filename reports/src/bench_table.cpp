// bench.json as a table (reports/README.md, "bench.json"), shared by report.html and
// summary.md.
#include <algorithm>
#include <cstdio>

#include "util.hpp"
#include "writers.hpp"

namespace report {
namespace {

std::string text_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

std::optional<double> number_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

std::string load_text(const json& load) {
  if (!load.is_array() || load.empty()) return "";
  std::string s;
  for (const auto& v : load) {
    if (!s.empty()) s += ' ';
    s += v.is_number() ? fixed(v.get<double>(), 2) : v.dump();
  }
  return s;
}

}  // namespace

bool is_bench_only(const Report& report) {
  return report.run.is_object() && report.run.value("command", "") == "bench";
}

std::string format_ns(double ns) {
  // Three significant digits, in the unit that keeps the number under 1000.
  const auto [value, unit] = ns >= 999.5e3 ? std::pair{ns / 1e6, "ms"}
                             : ns >= 999.5 ? std::pair{ns / 1e3, "µs"}
                                           : std::pair{ns, "ns"};
  char buf[32];
  std::snprintf(buf, sizeof buf, value >= 99.95 ? "%.0f %s" : value >= 9.995 ? "%.1f %s" : "%.2f %s",
                value, unit);
  return buf;
}

BenchTable bench_table(const json& bench) {
  BenchTable table;
  const json* list = &bench;
  if (bench.is_object() && bench.contains("benchmarks")) list = &bench["benchmarks"];
  if (bench.is_object() && bench.contains("implementations") && bench["implementations"].is_array())
    for (const auto& impl : bench["implementations"]) {
      const auto name = text_of(impl, "name");
      if (!name.empty()) table.impls.push_back(name);
    }
  if (!list->is_array()) return table;
  for (const auto& b : *list) {
    auto name = text_of(b, "benchmark");
    if (name.empty()) name = text_of(b, "name");
    const auto impl = text_of(b, "implementation");
    const int threads = number_of(b, "threads") ? static_cast<int>(*number_of(b, "threads")) : 0;
    const std::pair<std::string, int> row{name, threads};
    auto it = std::find(table.rows.begin(), table.rows.end(), row);
    const size_t index = it - table.rows.begin();
    if (it == table.rows.end()) {
      table.rows.push_back(row);
      table.clocks.push_back(text_of(b, "time"));
    }
    if (std::find(table.impls.begin(), table.impls.end(), impl) == table.impls.end())
      table.impls.push_back(impl);
    BenchCell cell;
    cell.median_ns = number_of(b, "median_ns");
    cell.status = text_of(b, "status");
    if (cell.status.empty()) cell.status = cell.median_ns ? "ok" : "n/a";
    cell.reason = text_of(b, "reason");
    if (cell.status == "unavailable" || cell.status == "not built")
      table.unavailable[impl] = cell.status + ": " + cell.reason;
    cell.ratio = number_of(b, "ratio_vs_reference");
    if (auto reps = number_of(b, "repetitions")) cell.repetitions = static_cast<int>(*reps);
    table.cells[{index, impl}] = cell;
  }
  if (bench.is_object()) {
    std::string setup;
    auto add = [&](const std::string& part) { setup += (setup.empty() ? "" : "; ") + part; };
    if (auto reps = number_of(bench, "repetitions")) table.repetitions = static_cast<int>(*reps);
    if (auto reps = number_of(bench, "repetitions")) add(fixed(*reps, 0) + " repetitions per case and implementation");
    if (number_of(bench, "min_time_s")) add("at least " + text_of(bench, "min_time_s") + " s each");
    if (!text_of(bench, "order").empty()) add("order " + text_of(bench, "order"));
    if (bench.contains("load_average") && bench["load_average"].is_object()) {
      const auto& load = bench["load_average"];
      add("load average (1, 5, 15 min) before " + load_text(load.value("before", json())) +
          ", after " + load_text(load.value("after", json())));
    }
    table.setup = setup;
  }
  return table;
}

}  // namespace report
