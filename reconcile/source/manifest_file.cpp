#include "source/manifest_file.hpp"

namespace opctl::source {

bool is_manifest_file_name(const std::string& name) {
  auto ends_with = [&](const std::string& suffix) {
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".yaml") || ends_with(".yml") || ends_with(".json");
}

}  // namespace opctl::source
