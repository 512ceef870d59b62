// --report FILE: written whole, or an error naming the file (never a silently
// truncated report that CI would read as complete).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/error.hpp"
#include "report_file.hpp"

using opctl::cli::write_report_file;
using opctl::model::Json;

namespace {

std::string read_report(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The error write_report_file throws for `path`; an empty message when none.
std::string error_writing(const std::string& path) {
  try {
    write_report_file(path, Json{{"kind", "RunReport"}});
  } catch (const opctl::Error& error) {
    CHECK(error.category() == opctl::ErrorCategory::invalid_input);
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a report is written as indented JSON, replacing what was there", "[report_file]") {
  // Given a writable path with an older report, we should leave exactly the new report there.
  auto path = std::filesystem::temp_directory_path() / "opctl-test-report.json";
  std::ofstream(path) << "an older, longer report that must not survive in part";
  Json report = {{"kind", "RunReport"}, {"result", "succeeded"}};
  write_report_file(path.string(), report);
  CHECK(read_report(path) == report.dump(2) + "\n");
  std::filesystem::remove(path);
}

TEST_CASE("a report that cannot be opened, written or flushed is an error naming the file", "[report_file]") {
  // Given a directory that does not exist, we should say so and name the file.
  auto missing = (std::filesystem::temp_directory_path() / "opctl-no-such-dir" / "report.json").string();
  CHECK_THAT(error_writing(missing),
             Catch::Contains("cannot write the report file " + missing) && Catch::Contains("No such file"));
  // Given a device whose writes fail when flushed (a full disk), we should not report success.
  if (std::filesystem::exists("/dev/full"))
    CHECK_THAT(error_writing("/dev/full"), Catch::Contains("/dev/full") && Catch::Contains("No space left"));
}
