// doctest's main, compiled once and linked into every battery executable.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "support/watchdog.hpp"

namespace saferecl::test {
namespace {

// Arms the gap watch (support/watchdog.hpp) for every test case: a call into the
// implementation that no step covers still ends within the watchdog's limit.
struct gap_watch_listener : doctest::IReporter {
  explicit gap_watch_listener(const doctest::ContextOptions&) {}

  void test_case_start(const doctest::TestCaseData& tc) override { arm_gap_watch(tc.m_name); }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override { disarm_gap_watch(); }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
};

}  // namespace
}  // namespace saferecl::test

DOCTEST_REGISTER_LISTENER("saferecl-gap-watch", 1, saferecl::test::gap_watch_listener);
