// A FileTree held in memory for the source layer's tests: path -> content,
// directories implied by the paths; it lives "on disk" under /disk/ and is
// shown as repo@abc:PATH.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "source/manifest_tree.hpp"

namespace opctl::testing {

class MemoryTree : public source::FileTree {
 public:
  explicit MemoryTree(std::map<std::string, std::string> files) : files_(std::move(files)) {}

  std::vector<Entry> list(const std::string& directory) const override {
    std::map<std::string, Kind> names;
    std::string prefix = directory.empty() ? "" : directory + "/";
    for (const auto& [path, content] : files_) {
      if (!path.starts_with(prefix)) continue;
      std::string rest = path.substr(prefix.size());
      auto slash = rest.find('/');
      names[rest.substr(0, slash)] = slash == std::string::npos ? Kind::file : Kind::directory;
    }
    std::vector<Entry> entries;
    for (const auto& [name, kind] : names)
      entries.push_back({name, kind});
    return entries;
  }
  std::string read(const std::string& path) const override { return files_.at(path); }
  std::filesystem::path on_disk(const std::string& path) override { return "/disk/" + path; }
  std::string display(const std::string& path) const override { return "repo@abc:" + path; }

 private:
  std::map<std::string, std::string> files_;
};

}  // namespace opctl::testing
