#include "validate/manifest_loading.hpp"

#include <map>

#include "model/yaml_document.hpp"
#include "source/manifest_parser.hpp"

namespace opctl::validate {
namespace {

using model::Object;

// The documents of a file parse_manifests rejected that are still usable.
// Problems are not collected again: parse_manifests reported them.
std::vector<Object> salvage(const source::ManifestFile& file) {
  std::vector<Object> objects;
  std::vector<model::YamlDocument> documents;
  try {
    documents = model::parse_yaml_documents(file.content, file.path);
  } catch (const InvalidInputError&) {
    return objects;
  }
  for (auto& document : documents) {
    if (!document.value.is_object() || source::is_list_document(document.value)) continue;
    Object object(std::move(document.value), model::SourceLocation{file.path, document.line},
                  std::move(document.field_lines));
    if (source::identity_problems(object).empty()) objects.push_back(std::move(object));
  }
  return objects;
}

// Duplicates across files; those inside one file were reported per file.
std::vector<Problem> cross_file_duplicates(const std::vector<Object>& objects) {
  std::vector<Problem> problems;
  std::map<model::ObjectKey, const Object*> seen;
  for (const auto& object : objects) {
    auto [existing, inserted] = seen.emplace(object.key(), &object);
    if (inserted || existing->second->location().file == object.location().file) continue;
    auto found = source::duplicate_problems({*existing->second, object});
    problems.insert(problems.end(), found.begin(), found.end());
  }
  return problems;
}

}  // namespace

LoadedManifests load_manifests(const std::vector<source::ManifestFile>& files) {
  LoadedManifests loaded;
  for (const auto& file : files) {
    std::vector<Object> objects;
    try {
      objects = source::parse_manifests({file});
    } catch (const InvalidInputError& error) {
      loaded.problems.insert(loaded.problems.end(), error.problems().begin(), error.problems().end());
      if (file.content.size() <= source::FileLimits{}.max_file_bytes) objects = salvage(file);
    }
    for (auto& object : objects)
      loaded.objects.push_back(std::move(object));
  }
  auto duplicates = cross_file_duplicates(loaded.objects);
  loaded.problems.insert(loaded.problems.end(), duplicates.begin(), duplicates.end());
  return loaded;
}

}  // namespace opctl::validate
