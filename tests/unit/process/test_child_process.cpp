// run_process's input: written while the output is read, so a child that
// answers as it reads (cat) takes any amount, and one that never reads does
// not kill us with SIGPIPE.
#include <catch2/catch.hpp>

#include "process/child_process.hpp"

using opctl::process::ProcessOptions;
using opctl::process::run_process;

TEST_CASE("an input far beyond a pipe's buffer reaches a child that echoes it as it reads",
          "[child_process]") {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(30);
  for (int i = 0; options.input.size() < 1024 * 1024; ++i)
    options.input += "line " + std::to_string(i) + "\n";
  auto result = run_process({"cat"}, options);
  CHECK_FALSE(result.timed_out);
  CHECK(result.exit_code == 0);
  CHECK(result.out == options.input);
}

TEST_CASE("a child that exits without reading its large input is no error of ours", "[child_process]") {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(30);
  options.input.assign(1024 * 1024, 'x');
  auto result = run_process({"sh", "-c", "echo done"}, options);
  CHECK_FALSE(result.timed_out);
  CHECK(result.exit_code == 0);
  CHECK(result.out == "done\n");
}
