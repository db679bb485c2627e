// Reads the report directory (what the driver and CTest wrote) and the requirement catalog.
#pragma once

#include <filesystem>

#include "model.hpp"

namespace report {

struct Options {
  std::filesystem::path in_dir;
  std::filesystem::path catalog;     // reports/catalog/requirements.json
  std::filesystem::path source_dir;  // the repository (suite/ sources for NOT BUILT names)
  std::string title;
};

// Fills everything the inputs say; problems with optional or damaged inputs become
// report.notes rather than errors, so a broken run still gets a report.
void load_inputs(const Options& options, Report& report);

// Maps tests to requirement rows and decides every cell and implementation verdict.
void analyse(Report& report);

}  // namespace report
