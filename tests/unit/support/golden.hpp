// Golden files for renderers: tests/unit/cli/golden/NAME holds the expected
// output; OPCTL_UPDATE_GOLDEN=1 rewrites it from the actual one.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace opctl::testing {

inline std::filesystem::path golden_dir() {
  return std::filesystem::path(OPCTL_TEST_DATA_DIR).parent_path() / "cli" / "golden";
}

inline void check_golden(const std::string& name, const std::string& actual) {
  auto path = golden_dir() / name;
  const char* update = std::getenv("OPCTL_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  INFO("golden file " << path.string() << " (OPCTL_UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE(in.good());
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(actual == expected.str());
}

}  // namespace opctl::testing
