#include "source/directory_source.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "model/error.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {
std::string read_whole_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidInputError({Problem{path.string(), 0, "", "cannot read file"}});
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

bool is_hidden(const fs::path& relative) {
  return std::any_of(relative.begin(), relative.end(),
                     [](const fs::path& part) { return part.string().starts_with("."); });
}
}  // namespace

std::vector<ManifestFile> read_directory(const fs::path& root) {
  std::error_code error;
  if (!fs::exists(root, error)) throw InvalidInputError({Problem{root.string(), 0, "", "no such directory"}});
  if (fs::is_regular_file(root, error)) return {ManifestFile{root.string(), read_whole_file(root)}};
  if (!fs::is_directory(root, error)) throw InvalidInputError({Problem{root.string(), 0, "", "not a directory"}});
  std::vector<fs::path> paths;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::follow_directory_symlink);
       it != fs::recursive_directory_iterator(); ++it) {
    fs::path relative = fs::relative(it->path(), root);
    if (is_hidden(relative)) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && is_manifest_file_name(it->path().filename().string())) paths.push_back(it->path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<ManifestFile> files;
  files.reserve(paths.size());
  for (const auto& path : paths) files.push_back({path.string(), read_whole_file(path)});
  return files;
}

}  // namespace opctl::source
