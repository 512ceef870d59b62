// render_kustomization with stand-in kubectl and kustomize programs on PATH:
// which one runs, with what arguments, and how a failure reads.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "model/error.hpp"
#include "source/kustomize.hpp"

namespace fs = std::filesystem;
using opctl::InvalidInputError;
using opctl::source::render_kustomization;

namespace {

// A directory of stand-in programs, made the whole PATH while the test runs
// (render_kustomization searches PATH itself); the old PATH comes back after.
class FakePath {
 public:
  FakePath() {
    fs::create_directories(bin_);
    fs::create_directories(kustomization_);
    const char* saved = std::getenv("PATH");
    saved_ = saved ? saved : "";
    ::setenv("PATH", bin_.c_str(), 1);
  }
  FakePath(const FakePath&) = delete;
  FakePath& operator=(const FakePath&) = delete;
  ~FakePath() {
    ::setenv("PATH", saved_.c_str(), 1);
    fs::remove_all(root_);
  }

  // A shell script; it may use only the shell's builtins, PATH has nothing else.
  void program(const std::string& name, const std::string& script) const {
    std::ofstream(bin_ / name) << script;
    ::chmod((bin_ / name).c_str(), 0755);
  }

  const fs::path& kustomization() const { return kustomization_; }

 private:
  fs::path root_ = fs::temp_directory_path() / ("opctl-kustomize-test-" + std::to_string(::getpid()));
  fs::path bin_ = root_ / "bin";
  fs::path kustomization_ = root_ / "work" / "overlays" / "prod";
  std::string saved_;
};

// The one problem a failed render reports.
opctl::Problem problem_of(const fs::path& directory, const std::string& display) {
  try {
    render_kustomization(directory, display);
  } catch (const InvalidInputError& error) {
    REQUIRE(error.problems().size() == 1);
    return error.problems()[0];
  }
  FAIL("the render did not fail");
  return {};
}

}  // namespace

TEST_CASE("kubectl kustomize renders when kubectl is on PATH, whatever else is", "[kustomize]") {
  FakePath path;
  path.program("kubectl", "#!/bin/sh\nprintf 'kind: ConfigMap # kubectl %s %s\\n' \"$1\" \"$2\"\n");
  path.program("kustomize", "#!/bin/sh\necho 'kustomize was run'\nexit 1\n");
  auto directory = path.kustomization();
  CHECK(render_kustomization(directory, "repo@abc:overlays/prod") ==
        "kind: ConfigMap # kubectl kustomize " + directory.string() + "\n");
}

TEST_CASE("without kubectl, kustomize build renders", "[kustomize]") {
  FakePath path;
  path.program("kustomize", "#!/bin/sh\nprintf 'kustomize %s %s' \"$1\" \"$2\"\n");
  auto directory = path.kustomization();
  CHECK(render_kustomization(directory, "repo@abc:overlays/prod") == "kustomize build " + directory.string());
}

TEST_CASE("a failed render says what the program printed, naming the directory as the user knows it",
          "[kustomize]") {
  FakePath path;
  path.program("kubectl",
               "#!/bin/sh\necho \"Error: accumulating resources from '$2/missing.yaml'\" >&2\n"
               "echo >&2\necho 'hint: check the path' >&2\nexit 1\n");
  auto problem = problem_of(path.kustomization(), "repo@abc:overlays/prod");
  CHECK(problem.file == "repo@abc:overlays/prod");
  CHECK(problem.message ==
        "kubectl kustomize failed: Error: accumulating resources from 'repo@abc:overlays/prod/missing.yaml'; "
        "hint: check the path");
}

TEST_CASE("a failed render whose display is the directory itself is reported, not replaced forever",
          "[kustomize]") {
  // Given a plain directory typed as an absolute path, the display is the directory itself.
  FakePath path;
  path.program("kubectl", "#!/bin/sh\necho \"Error: $2 is broken\" >&2\nexit 1\n");
  auto directory = path.kustomization().string();
  CHECK(problem_of(directory, directory).message ==
        "kubectl kustomize failed: Error: " + directory + " is broken");
}

TEST_CASE("a program that is found but cannot start says why", "[kustomize]") {
  FakePath path;
  path.program("kubectl", "#!/nonexistent/interpreter\n");
  auto problem = problem_of(path.kustomization(), "overlays/prod");
  CHECK_THAT(problem.message,
             Catch::StartsWith("cannot run ") && Catch::EndsWith("/bin/kubectl: No such file or directory"));
}

TEST_CASE("with neither kubectl nor kustomize on PATH, a kustomization is an input error", "[kustomize]") {
  FakePath path;
  auto problem = problem_of(path.kustomization(), "overlays/prod");
  CHECK(problem.file == "overlays/prod");
  CHECK_THAT(problem.message, Catch::Contains("needs kubectl or kustomize on PATH"));
}
