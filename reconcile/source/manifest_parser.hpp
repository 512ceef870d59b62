// Turns manifest files into validated objects: multi-document YAML, list
// expansion (`kind: List` and typed lists such as `ConfigMapList`), identity checks and duplicate detection,
// reporting every problem.
#pragma once

#include <vector>

#include "model/error.hpp"
#include "model/object.hpp"
#include "model/yaml_document.hpp"
#include "source/manifest_file.hpp"

namespace opctl::source {

struct ParseOptions {
  model::YamlLimits yaml_limits;
  FileLimits file_limits;
};

// Parses all files; throws InvalidInputError listing every problem found in
// any file, so that nothing is applied unless the whole set is valid. Taken
// by value: each file's text is freed once it is parsed (at 20,000 objects
// the texts were 14 MiB of the parse's peak, beside the objects they became).
std::vector<model::Object> parse_manifests(std::vector<ManifestFile> files, const ParseOptions& options = {});

// A document kubectl expands into its items: a kind that ends in "List"
// (List, ConfigMapList, RoleBindingList...) with an `items` field.
bool is_list_document(const model::Json& value);

// The identity problems of one object (missing apiVersion, kind, name...).
std::vector<Problem> identity_problems(const model::Object& object);

// Objects that share an identity; each problem names both places.
std::vector<Problem> duplicate_problems(const std::vector<model::Object>& objects);

}  // namespace opctl::source
