#include "model.hpp"

namespace report {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::Timeout: return "TIMEOUT";
    case Verdict::Crash: return "CRASH";
    case Verdict::NotApplicable: return "NOT APPLICABLE";
    case Verdict::NotBuilt: return "NOT BUILT";
  }
  return "?";
}

const char* css_class(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "v-pass";
    case Verdict::Fail: return "v-fail";
    case Verdict::Timeout: return "v-timeout";
    case Verdict::Crash: return "v-crash";
    case Verdict::NotApplicable: return "v-na";
    case Verdict::NotBuilt: return "v-notbuilt";
  }
  return "";
}

bool is_failing(Verdict v) {
  return v == Verdict::Fail || v == Verdict::Timeout || v == Verdict::Crash ||
         v == Verdict::NotBuilt;
}

bool is_normative_tier(const std::string& tier) { return tier != "strict" && tier != "qoi"; }

const char* to_string(Status s) {
  switch (s) {
    case Status::NonConforming: return "non-conforming";
    case Status::Warning: return "warning";
    case Status::Qoi: return "qoi-finding";
    case Status::Conforming: return "conforming";
    case Status::NotApplicable: return "not-applicable";
    case Status::Untested: return "untested";
    case Status::NotTestable: return "not-testable";
    case Status::Unavailable: return "unavailable";
  }
  return "?";
}

const char* label(Status s) {
  switch (s) {
    case Status::NonConforming: return "non-conforming";
    case Status::Warning: return "warning";
    case Status::Qoi: return "QoI finding";
    case Status::Conforming: return "conforming";
    case Status::NotApplicable: return "n/a";
    case Status::Untested: return "untested";
    case Status::NotTestable: return "no test needed";
    case Status::Unavailable: return "unavailable";
  }
  return "?";
}

const char* css_class(Status s) {
  switch (s) {
    case Status::NonConforming: return "s-bad";
    case Status::Warning: return "s-warn";
    case Status::Qoi: return "s-qoi";
    case Status::Conforming: return "s-ok";
    case Status::NotApplicable: return "s-na";
    case Status::Untested: return "s-untested";
    case Status::NotTestable: return "s-nt";
    case Status::Unavailable: return "s-unavail";
  }
  return "";
}

const Implementation* Report::impl(const std::string& name) const {
  for (const auto& i : impls)
    if (i.name == name) return &i;
  return nullptr;
}

const Row* Report::row(const std::string& id) const {
  for (const auto& r : rows)
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace report
