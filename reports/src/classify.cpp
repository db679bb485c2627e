#include "classify.hpp"

#include <regex>

#include "util.hpp"

namespace report {
namespace {

const std::regex& deadly_signal() {
  static const std::regex re(
      R"(Sanitizer:DEADLYSIGNAL|Sanitizer: (SEGV|BUS|FPE|ILL|ABRT|stack-overflow))");
  return re;
}

std::string signal_name(int sig) {
  switch (sig) {
    case 4: return "SIGILL";
    case 5: return "SIGTRAP";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 9: return "SIGKILL";
    case 11: return "SIGSEGV";
    case 13: return "SIGPIPE";
    case 15: return "SIGTERM";
    default: return "signal " + std::to_string(sig);
  }
}

std::string seconds(double s) { return fixed(s, s < 10 ? 2 : 1) + " s"; }

bool is_doctest_banner(std::string_view line) {
  return starts_with(line, "[doctest] doctest version is") ||
         starts_with(line, "[doctest] run with \"--help\"");
}

std::string strip_dir(std::string line) {
  // "/long/path/to/file.cpp:12: ERROR: ..." -> "file.cpp:12: ERROR: ..."
  static const std::regex path(R"((^|\s)(/[^\s:]*/)([^/\s:]+:\d+))");
  return std::regex_replace(line, path, "$1$3");
}

}  // namespace

std::optional<int> exit_status_of(std::string_view output) {
  static const std::regex re(R"(\[saferecl\] exit status (\d+))");
  std::optional<int> status;
  std::string text(output);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    status = std::stoi((*it)[1].str());
  return status;
}

Classification classify(const CaseRecord& r) {
  const auto exit = exit_status_of(r.output);
  if (r.skipped || r.status == "notrun" || r.status == "disabled") {
    if (r.status == "disabled" || contains(r.skip_message, "Disabled"))
      return {Verdict::NotApplicable, "disabled in CTest", exit};
    if (contains(r.skip_message, "SKIP_RETURN_CODE") || exit == 77)
      return {Verdict::NotApplicable, "exit status 77 (not applicable)", exit};
    return {Verdict::NotBuilt,
            "CTest could not run it" + (r.skip_message.empty() ? "" : ": " + r.skip_message),
            exit};
  }
  if (!r.failed && r.status != "fail") return {Verdict::Pass, "", exit};

  const bool ran_out = r.timeout && *r.timeout > 0 && r.time >= *r.timeout * 0.98;
  const bool deadly = std::regex_search(r.output, deadly_signal());
  if (r.kind == "compile-fail") {
    // cmake -P prints PASS/FAIL lines and no exit status; only the clock tells a kill.
    if (ran_out)
      return {Verdict::Timeout,
              "killed by CTest's TIMEOUT (" + seconds(*r.timeout) + ") while compiling", exit};
    return {Verdict::Fail, "the compile check failed", exit};
  }
  if (!exit) {
    if (ran_out || !r.timeout)
      return {Verdict::Timeout,
              "killed by CTest's TIMEOUT" + (r.timeout ? " (" + seconds(*r.timeout) + ")" : "") +
                  " after " + seconds(r.time) + ": no exit status",
              exit};
    if (deadly) return {Verdict::Crash, "sanitizer: deadly signal (no exit status)", exit};
    return {Verdict::Fail,
            "no exit status after " + seconds(r.time) +
                " (output truncated by CTest, or the launcher was killed)",
            exit};
  }
  const int code = *exit;
  if (code == 124 || contains(r.output, "[saferecl] TIMEOUT"))
    return {Verdict::Timeout, "watchdog timeout (exit status " + std::to_string(code) + ")", exit};
  if (code >= 128)
    return {Verdict::Crash,
            "killed by " + signal_name(code - 128) + " (exit status " + std::to_string(code) + ")",
            exit};
  if (deadly)
    return {Verdict::Crash, "sanitizer: deadly signal (exit status " + std::to_string(code) + ")",
            exit};
  if (code == 77) return {Verdict::NotApplicable, "exit status 77 (not applicable)", exit};
  if (code == 66) return {Verdict::Fail, "sanitizer report (exit status 66)", exit};
  if (code == 0) return {Verdict::Fail, "CTest reported a failure with exit status 0", exit};
  return {Verdict::Fail, "exit status " + std::to_string(code), exit};
}

void seed_and_config(std::string_view output, std::string& seed, std::string& config) {
  static const std::regex re(R"(^\[saferecl\] [^\n]*: seed=([0-9]+)[^\n]*)");
  for (auto line : split_lines(output)) {
    std::string text(line);
    std::smatch m;
    if (std::regex_search(text, m, re)) {
      seed = m[1].str();
      config = text;
      return;
    }
  }
}

std::string headline_of(std::string_view output) {
  const auto lines = split_lines(output);
  // In order of preference: the first line matching each pattern wins.
  static const std::vector<std::regex> patterns = {
      std::regex(R"(SUMMARY: \w*Sanitizer: .*)"),
      std::regex(R"(\[saferecl\] TIMEOUT.*)"),
      std::regex(R"(ERROR: \w*Sanitizer: .*)"),
      std::regex(R"(WARNING: \w*Sanitizer: .*)"),
      std::regex(R"(.*: (ERROR|FATAL ERROR): .*)"),
      std::regex(R"(^\s*FAIL: .*)"),
      std::regex(R"(\[saferecl\] NOT APPLICABLE: .*)"),
      std::regex(R"(.*(terminate called|Segmentation fault|Aborted|error: ).*)"),
  };
  for (const auto& re : patterns) {
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string line(lines[i]);
      std::smatch m;
      if (!std::regex_search(line, m, re)) continue;
      std::string found = trim(m[0].str());
      // doctest follows a failed check with "  values: CHECK( 1 == 2 )".
      if (i + 1 < lines.size() && starts_with(trim(lines[i + 1]), "values:"))
        found += "  " + trim(lines[i + 1]);
      found = strip_dir(found);
      if (found.size() > 300) found = found.substr(0, 297) + "...";
      return found;
    }
  }
  return {};
}

std::string excerpt_of(std::string_view output, size_t max_chars) {
  std::vector<std::string_view> kept;
  for (auto line : split_lines(output))
    if (!is_doctest_banner(line)) kept.push_back(line);
  while (!kept.empty() && trim(kept.back()).empty()) kept.pop_back();
  auto join = [](auto first, auto last) {
    std::string s;
    for (auto it = first; it != last; ++it) (s += *it) += '\n';
    return s;
  };
  std::string all = join(kept.begin(), kept.end());
  if (all.size() <= max_chars) return all;
  // Head and tail: the first report and the exit status both matter.
  const size_t head_budget = max_chars * 2 / 3, tail_budget = max_chars - head_budget;
  size_t head = 0, used = 0;
  while (head < kept.size() && used + kept[head].size() + 1 <= head_budget)
    used += kept[head++].size() + 1;
  size_t tail = kept.size();
  used = 0;
  while (tail > head && used + kept[tail - 1].size() + 1 <= tail_budget)
    used += kept[--tail].size() + 1;
  std::string s = join(kept.begin(), kept.begin() + static_cast<long>(head));
  if (head == 0 && !kept.empty())  // one giant line
    s = std::string(kept[0].substr(0, head_budget)) + "\n";
  s += "[... " + std::to_string(tail - head) + " lines omitted; the full output is in junit.xml ...]\n";
  s += join(kept.begin() + static_cast<long>(tail), kept.end());
  return s;
}

NameParts parse_test_name(std::string_view name) {
  NameParts parts;
  std::string head(name.substr(0, name.find(':')));
  static const std::regex stable(R"(^\s*([a-z][a-z0-9_]*(\.[a-z0-9_]+)+)(/([0-9]+))?)");
  std::smatch m;
  size_t rest = 0;
  if (std::regex_search(head, m, stable)) {
    parts.stable = m[1].str();
    parts.paragraph = m[4].str();
    rest = static_cast<size_t>(m.length(0));
  }
  static const std::regex id(R"((^|[^A-Za-z0-9_.])([GRHB][0-9]{1,2})(?![0-9]))");
  std::string tail = head.substr(rest);
  for (auto it = std::sregex_iterator(tail.begin(), tail.end(), id); it != std::sregex_iterator();
       ++it) {
    auto value = (*it)[2].str();
    if (std::find(parts.ids.begin(), parts.ids.end(), value) == parts.ids.end())
      parts.ids.push_back(value);
  }
  return parts;
}

std::vector<SourceCase> cases_in_source(const std::string& text, bool compile_fail) {
  std::vector<SourceCase> cases;
  if (compile_fail) {
    SourceCase c{"", "core", "compile-fail"};
    for (auto line : split_lines(text)) {
      if (starts_with(line, "// TEST:")) c.name = trim(line.substr(8));
      if (starts_with(line, "// TIER:")) c.tier = trim(line.substr(8));
    }
    if (!c.name.empty()) cases.push_back(c);
    return cases;
  }
  static const std::regex suite_re(R"(test_suite\s*\(\s*"([^"]*)\")");
  size_t pos = 0;
  while ((pos = text.find("TEST_CASE", pos)) != std::string::npos) {
    size_t at = pos;
    pos += 9;
    // Skip mentions in line comments and longer identifiers (TEST_CASE_TEMPLATE, ...).
    size_t line_start = text.rfind('\n', at);
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    if (text.substr(line_start, at - line_start).find("//") != std::string::npos) continue;
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_'))
      continue;
    size_t p = text.find_first_not_of(" \t\r\n", pos);
    if (p == std::string::npos || text[p] != '(') continue;
    p = text.find_first_not_of(" \t\r\n", p + 1);
    std::string name;
    // One or more adjacent string literals.
    while (p != std::string::npos && p < text.size() && text[p] == '"') {
      ++p;
      while (p < text.size() && text[p] != '"') {
        if (text[p] == '\\' && p + 1 < text.size()) {
          char e = text[++p];
          name += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        } else {
          name += text[p];
        }
        ++p;
      }
      p = text.find_first_not_of(" \t\r\n", p + 1);
    }
    if (name.empty()) continue;
    size_t body = text.find('{', p == std::string::npos ? text.size() : p);
    std::string decl = text.substr(at, body == std::string::npos ? std::string::npos : body - at);
    SourceCase c{name, "unlabelled", "unlabelled"};
    std::smatch m;
    if (std::regex_search(decl, m, suite_re)) {
      auto suite = m[1].str();
      auto dot = suite.find('.');
      if (dot != std::string::npos) {
        c.tier = suite.substr(0, dot);
        c.kind = suite.substr(dot + 1);
      }
    }
    cases.push_back(c);
  }
  return cases;
}

}  // namespace report
