#include "source/manifest_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace opctl::source {
namespace {

using model::Json;
using model::Object;

// The offset of the first byte that is not part of a valid UTF-8 sequence,
// or npos when the whole text is valid.
std::size_t invalid_utf8_offset(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) {
    auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return i;
    i += length;
  }
  return std::string::npos;
}

int line_at_offset(const std::string& text, std::size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// A `kind: List` document becomes its items, each keeping its own line.
void expand_document(model::YamlDocument&& document, const std::string& file, std::vector<Object>& objects,
                     std::vector<Problem>& problems) {
  const Json& value = document.value;
  if (!value.is_object()) {
    problems.push_back({file, document.line, "", "a manifest must be a mapping (an object), not a list or scalar"});
    return;
  }
  bool is_list = value.contains("kind") && value["kind"].is_string() && value["kind"].get<std::string>() == "List" &&
                 value.contains("items");
  if (!is_list) {
    objects.emplace_back(std::move(document.value), model::SourceLocation{file, document.line},
                         std::move(document.field_lines));
    return;
  }
  if (!value["items"].is_array()) {
    problems.push_back({file, document.line, "items", "a List's items must be a list"});
    return;
  }
  for (std::size_t index = 0; index < value["items"].size(); ++index) {
    std::string prefix = fmt::format("/items/{}", index);
    std::map<std::string, int> lines;
    for (const auto& [pointer, line] : document.field_lines)
      if (pointer.starts_with(prefix + "/")) lines[pointer.substr(prefix.size())] = line;
    int line = document.field_lines.contains(prefix) ? document.field_lines[prefix] : document.line;
    Json item = value["items"][index];
    if (!item.is_object()) {
      problems.push_back({file, line, fmt::format("items[{}]", index), "a List item must be an object"});
      continue;
    }
    objects.emplace_back(std::move(item), model::SourceLocation{file, line}, std::move(lines));
  }
}

void check_string_field(const Object& object, const char* pointer, const char* field, bool required,
                        std::vector<Problem>& problems) {
  const Json& body = object.body();
  Json::json_pointer path(pointer);
  const auto& file = object.location().file;
  if (!body.contains(path) || body.at(path).is_null()) {
    if (required)
      problems.push_back({file, object.location().line, field, fmt::format("missing required field \"{}\"", field)});
    return;
  }
  const Json& value = body.at(path);
  if (!value.is_string()) {
    problems.push_back({file, object.line_of(pointer), field, fmt::format("must be a string, not {}", value.type_name())});
  } else if (required && value.get<std::string>().empty()) {
    problems.push_back({file, object.line_of(pointer), field, "must not be empty"});
  }
}

}  // namespace

std::vector<Problem> identity_problems(const Object& object) {
  std::vector<Problem> problems;
  check_string_field(object, "/apiVersion", "apiVersion", true, problems);
  check_string_field(object, "/kind", "kind", true, problems);
  const Json& body = object.body();
  if (body.contains("metadata") && !body["metadata"].is_object()) {
    problems.push_back({object.location().file, object.line_of("/metadata"), "metadata", "must be an object"});
    return problems;
  }
  check_string_field(object, "/metadata/name", "metadata.name", true, problems);
  check_string_field(object, "/metadata/namespace", "metadata.namespace", false, problems);
  for (const char* map_field : {"labels", "annotations"}) {
    std::string pointer = fmt::format("/metadata/{}", map_field);
    if (!body.contains(Json::json_pointer(pointer))) continue;
    const Json& map = body.at(Json::json_pointer(pointer));
    if (map.is_null()) continue;
    if (!map.is_object()) {
      problems.push_back({object.location().file, object.line_of(pointer), fmt::format("metadata.{}", map_field),
                          "must be a map of strings"});
      continue;
    }
    for (const auto& [key, value] : map.items())
      if (!value.is_string())
        problems.push_back({object.location().file, object.line_of(pointer + "/" + key),
                            fmt::format("metadata.{}.{}", map_field, key),
                            fmt::format("must be a string, not {} (quote it)", value.type_name())});
  }
  return problems;
}

std::vector<Problem> duplicate_problems(const std::vector<Object>& objects) {
  std::vector<Problem> problems;
  std::map<model::ObjectKey, const Object*> seen;
  for (const auto& object : objects) {
    auto [existing, inserted] = seen.emplace(object.key(), &object);
    if (inserted) continue;
    const auto& first = existing->second->location();
    problems.push_back({object.location().file, object.location().line, "",
                        fmt::format("duplicate object {} (first defined at {}:{})", object.key().to_string(),
                                    first.file, first.line)});
  }
  return problems;
}

std::vector<Object> parse_manifests(const std::vector<ManifestFile>& files, const ParseOptions& options) {
  std::vector<Object> objects;
  std::vector<Problem> problems;
  for (const auto& file : files) {
    if (file.content.size() > options.file_limits.max_file_bytes) {
      problems.push_back({file.path, 0, "",
                          fmt::format("file is {} bytes, over the limit of {}", file.content.size(),
                                      options.file_limits.max_file_bytes)});
      continue;
    }
    if (auto offset = invalid_utf8_offset(file.content); offset != std::string::npos) {
      problems.push_back({file.path, line_at_offset(file.content, offset), "", "file is not valid UTF-8"});
      continue;
    }
    try {
      for (auto& document : model::parse_yaml_documents(file.content, file.path, options.yaml_limits))
        expand_document(std::move(document), file.path, objects, problems);
    } catch (const InvalidInputError& error) {
      problems.insert(problems.end(), error.problems().begin(), error.problems().end());
    }
  }
  std::vector<Object> valid;
  for (auto& object : objects) {
    auto found = identity_problems(object);
    if (found.empty()) {
      valid.push_back(std::move(object));
    } else {
      problems.insert(problems.end(), found.begin(), found.end());
    }
  }
  auto duplicates = duplicate_problems(valid);
  problems.insert(problems.end(), duplicates.begin(), duplicates.end());
  if (!problems.empty()) {
    std::stable_sort(problems.begin(), problems.end(),
                     [](const Problem& a, const Problem& b) { return std::tie(a.file, a.line) < std::tie(b.file, b.line); });
    throw InvalidInputError(std::move(problems));
  }
  return valid;
}

}  // namespace opctl::source
