// A plain directory is read as git reads a tree: symbolic links are skipped
// with a warning, never followed (no loops, nothing from outside the path).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "source/desired_source.hpp"
#include "source/directory_source.hpp"

using namespace opctl::source;
namespace fs = std::filesystem;

namespace {

struct Dir {
  fs::path root = fs::temp_directory_path() / ("opctl-dir-test-" + std::to_string(::getpid()));
  Dir() {
    fs::remove_all(root);
    fs::create_directories(root / "set" / "apps");
    fs::create_directories(root / "outside");
    std::ofstream(root / "set" / "apps" / "a.yaml") << "a";
    std::ofstream(root / "outside" / "secret.yaml") << "s";
  }
  ~Dir() { fs::remove_all(root); }

  std::vector<std::string> read(std::vector<std::string>& warnings) const {
    std::vector<std::string> paths;
    for (const auto& file :
         read_directory(root / "set", [&](const std::string& line) { warnings.push_back(line); }))
      paths.push_back(fs::path(file.path).lexically_relative(root / "set").generic_string());
    return paths;
  }
};

}  // namespace

TEST_CASE("symbolic links in a plain directory are skipped with a warning, never followed",
          "[directory_source]") {
  // Given links that loop (a -> ., b -> .), leave the directory or point at a file, we should read only the
  // real files, finish, and name every link in a warning.
  Dir dir;
  fs::create_directory_symlink(".", dir.root / "set" / "a");
  fs::create_directory_symlink(".", dir.root / "set" / "b");
  fs::create_directory_symlink(dir.root / "outside", dir.root / "set" / "elsewhere");
  fs::create_symlink(dir.root / "outside" / "secret.yaml", dir.root / "set" / "linked.yaml");
  std::vector<std::string> warnings;
  CHECK(dir.read(warnings) == std::vector<std::string>{"apps/a.yaml"});
  REQUIRE(warnings.size() == 4);
  CHECK_THAT(warnings[0], Catch::Contains("set/a: a symbolic link, not followed"));
  CHECK_THAT(warnings[2], Catch::Contains("set/elsewhere"));
  CHECK_THAT(warnings[3], Catch::Contains("set/linked.yaml"));
}

TEST_CASE("a set's source names the directory or the repo without credentials", "[directory_source]") {
  Dir dir;
  SourceOptions directory;
  directory.path = (dir.root / "set" / "apps" / "..").string();
  CHECK(set_source_identity(directory) == fs::canonical(dir.root / "set").string());
  SourceOptions git;
  git.repo = "https://user:hunter2@git.example.com/team/ops.git";
  git.path = "./prod/";
  CHECK(set_source_identity(git) == "https://git.example.com/team/ops.git:prod");
  git.path = "";
  CHECK(set_source_identity(git) == "https://git.example.com/team/ops.git:.");
}
