// saferecl-report: turns what CTest and ./conformance wrote into a report directory into
// results.json, summary.md and report.html (see reports/README.md).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include "inputs.hpp"
#include "util.hpp"
#include "writers.hpp"

namespace fs = std::filesystem;

namespace {

constexpr int kOk = 0, kUsage = 2, kBroken = 3;

const char* kUsageText =
    "usage: saferecl-report --in <report dir> [--title TEXT] [--catalog FILE] [--source-dir DIR]\n"
    "\n"
    "Reads junit.xml, tests.json, implementations.json, manifest.json, build-failures.json,\n"
    "run.json (and mutants.json, bench.json when present) from the report directory and\n"
    "writes results.json, summary.md and report.html there, each atomically.\n"
    "\n"
    "  --in DIR          the report directory (required)\n"
    "  --title TEXT      page and summary title (default: saferecl conformance)\n"
    "  --catalog FILE    requirement catalog (default: " SAFERECL_DEFAULT_CATALOG ")\n"
    "  --source-dir DIR  the repository, to name the test cases of sources that never reached\n"
    "                    CTest (default: run.json's source_dir)\n"
    "  --version         print the version\n"
    "\n"
    "Exit status: 0 when the three files were written (whatever the verdict: see\n"
    "results.json's \"conforming\"), 2 on a usage error, 3 when they could not be written.\n";

}  // namespace

int main(int argc, char** argv) {
  report::Options options;
  options.catalog = SAFERECL_DEFAULT_CATALOG;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "saferecl-report: %s needs a value\n%s", arg.c_str(), kUsageText);
        std::exit(kUsage);
      }
      return argv[++i];
    };
    if (arg == "--in") options.in_dir = value();
    else if (arg == "--title") options.title = value();
    else if (arg == "--catalog") options.catalog = value();
    else if (arg == "--source-dir") options.source_dir = value();
    else if (arg == "--version") {
      std::printf("%s\n", report::kToolVersion);
      return kOk;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("%s", kUsageText);
      return kOk;
    } else {
      std::fprintf(stderr, "saferecl-report: unknown argument '%s'\n%s", arg.c_str(), kUsageText);
      return kUsage;
    }
  }
  if (options.in_dir.empty()) {
    std::fprintf(stderr, "saferecl-report: --in is required\n%s", kUsageText);
    return kUsage;
  }
  if (!fs::is_directory(options.in_dir)) {
    std::fprintf(stderr, "saferecl-report: %s is not a directory\n", options.in_dir.c_str());
    return kUsage;
  }
  try {
    report::Report r;
    report::load_inputs(options, r);
    report::analyse(r);
    // results.json last: its presence means the other two are complete as well.
    report::write_atomically(options.in_dir / "summary.md", report::summary_markdown(r));
    report::write_atomically(options.in_dir / "report.html", report::report_html(r));
    report::write_atomically(options.in_dir / "results.json", report::results_json(r));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "saferecl-report: %s\n", e.what());
    return kBroken;
  }
  return kOk;
}
