// Small helpers shared by the readers and writers.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace report {

std::string read_file(const std::filesystem::path& path);  // throws std::runtime_error
// Writes `content` to a temporary name next to `path`, then renames it over `path`, so a
// reader never sees a half-written file.
void write_atomically(const std::filesystem::path& path, std::string_view content);

std::vector<std::string_view> split_lines(std::string_view text);
std::string trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool contains(std::string_view s, std::string_view part);
std::string html_escape(std::string_view s);
std::string md_escape(std::string_view s);  // for table cells and inline text
std::string fixed(double value, int decimals);
std::string slug(std::string_view s);       // for HTML ids: [A-Za-z0-9_-]

}  // namespace report
