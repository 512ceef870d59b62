// --metrics-file FILE: replaced atomically (no temporary file left beside it, which the textfile collector
// would read half-written), readable by the collector's user, or an error naming the file.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "metrics_file.hpp"
#include "model/error.hpp"

using opctl::cli::write_metrics_file;

namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a metrics file replaces the old one whole, readable by all, with nothing left beside it",
          "[metrics_file]") {
  // given a directory holding an older, longer file, we should leave exactly the new text and no temporary
  // file
  auto dir = std::filesystem::temp_directory_path() / "opctl-test-metrics";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = dir / "opctl.prom";
  std::ofstream(path) << "an older, longer file that must not survive in part\n";
  write_metrics_file(path.string(), "opctl_run_success{set=\"shop\"} 1\n");
  CHECK(read_all(path) == "opctl_run_success{set=\"shop\"} 1\n");
  struct stat info {};
  REQUIRE(stat(path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0644);
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a metrics file that cannot be written is an error naming it", "[metrics_file]") {
  auto missing = (std::filesystem::temp_directory_path() / "opctl-no-such-dir" / "opctl.prom").string();
  try {
    write_metrics_file(missing, "x 1\n");
    FAIL("no error");
  } catch (const opctl::Error& error) {
    CHECK(error.category() == opctl::ErrorCategory::invalid_input);
    CHECK_THAT(error.what(), Catch::Contains("cannot write the metrics file " + missing) &&
                                 Catch::Contains("No such file"));
  }
}
