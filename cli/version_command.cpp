#include <curl/curl.h>
#include <fmt/format.h>
#include <git2.h>
#include <yaml-cpp/yaml.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "build_info.hpp"
#include "commands.hpp"
#include "git_commit.hpp"

namespace opctl::cli {

void register_version(CLI::App& app, CommandAction& action) {
  auto* command = app.add_subcommand("version", "Print the version of opctl, its build and its libraries");
  command->callback([&action] {
    action = [] {
      int major = 0, minor = 0, patch = 0;
      git_libgit2_version(&major, &minor, &patch);
      std::cout << fmt::format("opctl {} (commit {})\n", k_version, git_commit());
      std::cout << fmt::format("  libcurl {}\n", curl_version_info(CURLVERSION_NOW)->version);
      std::cout << fmt::format("  libgit2 {}.{}.{}\n", major, minor, patch);
      std::cout << fmt::format("  nlohmann-json {}.{}.{}\n", NLOHMANN_JSON_VERSION_MAJOR,
                               NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH);
      std::cout << fmt::format("  fmt {}\n", FMT_VERSION);
      return 0;
    };
  });
}

}  // namespace opctl::cli
