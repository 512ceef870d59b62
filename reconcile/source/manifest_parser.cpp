#include "source/manifest_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>
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
    std::size_t length = byte < 0x80           ? 1
                         : (byte >> 5) == 0x6  ? 2
                         : (byte >> 4) == 0xE  ? 3
                         : (byte >> 3) == 0x1E ? 4
                                               : 0;
    if (length == 0 || i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return i;
    i += length;
  }
  return std::string::npos;
}

int line_at_offset(const std::string& text, std::size_t offset) {
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// SOPS's own block (recipients, MAC) describes the file, not the object.
void drop_sops_block(model::YamlDocument& document) {
  if (!document.value.is_object()) return;
  document.value.erase("sops");
  std::erase_if(document.field_lines, [](const auto& entry) {
    return entry.first == "/sops" || entry.first.starts_with("/sops/");
  });
}

// A list document becomes its items, each keeping its own line. An item of a
// typed list with neither apiVersion nor kind is of the list's item kind
// (ConfigMapList: v1 ConfigMap), as `kubectl get --raw` writes them and as
// kubectl reads them; an item of `kind: List` must name its own.
void expand_document(model::YamlDocument&& document, const std::string& file, std::vector<Object>& objects,
                     std::vector<Problem>& problems) {
  const Json& value = document.value;
  if (!value.is_object()) {
    problems.push_back(
        {file, document.line, "", "a manifest must be a mapping (an object), not a list or scalar"});
    return;
  }
  if (!is_list_document(value)) {
    objects.emplace_back(std::move(document.value), model::SourceLocation{file, document.line},
                         std::move(document.field_lines));
    return;
  }
  std::string list_kind = value["kind"].get<std::string>();
  if (!value["items"].is_array()) {
    problems.push_back({file, document.line, "items", fmt::format("a {}'s items must be a list", list_kind)});
    return;
  }
  std::string item_kind = list_kind.substr(0, list_kind.size() - std::string("List").size());
  Json list_api_version = value.contains("apiVersion") ? value["apiVersion"] : Json();
  for (std::size_t index = 0; index < value["items"].size(); ++index) {
    std::string prefix = fmt::format("/items/{}", index);
    std::map<std::string, int> lines;
    for (const auto& [pointer, line] : document.field_lines)
      if (pointer.starts_with(prefix + "/")) lines[pointer.substr(prefix.size())] = line;
    int line = document.field_lines.contains(prefix) ? document.field_lines[prefix] : document.line;
    Json item = value["items"][index];
    if (!item.is_object()) {
      problems.push_back({file, line, fmt::format("items[{}]", index),
                          fmt::format("a {} item must be an object", list_kind)});
      continue;
    }
    if (!item_kind.empty() && !item.contains("kind") && !item.contains("apiVersion") &&
        list_api_version.is_string()) {
      item["apiVersion"] = list_api_version;
      item["kind"] = item_kind;
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
      problems.push_back(
          {file, object.location().line, field, fmt::format("missing required field \"{}\"", field)});
    return;
  }
  const Json& value = body.at(path);
  if (!value.is_string()) {
    problems.push_back(
        {file, object.line_of(pointer), field, fmt::format("must be a string, not {}", value.type_name())});
  } else if (required && value.get<std::string>().empty()) {
    problems.push_back({file, object.line_of(pointer), field, "must not be empty"});
  }
}

bool is_lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool is_dns_label(std::string_view text) {
  return !text.empty() && text.size() <= 63 && is_lower_alnum(text.front()) && is_lower_alnum(text.back()) &&
         std::all_of(text.begin(), text.end(), [](char c) { return is_lower_alnum(c) || c == '-'; });
}

bool is_dns_subdomain(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  for (std::size_t start = 0;;) {
    auto dot = text.find('.', start);
    if (!is_dns_label(text.substr(start, dot == std::string_view::npos ? dot : dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// The rule the API server applies to a kind's names (apimachinery's validation).
std::string name_problem(const Object& object, const std::string& name) {
  std::string kind = object.kind();
  std::string api_version = object.api_version();
  if (api_version.starts_with("rbac.authorization.k8s.io/")) {
    bool ok = name != "." && name != ".." && name.find_first_of("/%") == std::string::npos;
    return ok ? "" : "must not be \".\" or \"..\" nor contain '/' or '%'";
  }
  bool core = api_version == "v1";
  if (core && kind == "Namespace")
    return is_dns_label(name) ? ""
                              : "must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', "
                                "starting and ending with a letter or digit";
  if (core && kind == "Service")
    return is_dns_label(name) && std::isalpha(static_cast<unsigned char>(name.front()))
               ? ""
               : "must be a DNS-1035 label: at most 63 lowercase letters, digits and '-', starting with a "
                 "letter "
                 "and ending with a letter or digit";
  return is_dns_subdomain(name) ? ""
                                : "must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', "
                                  "starting and ending with a letter or digit, at most 253 characters";
}

void check_name_formats(const Object& object, std::vector<Problem>& problems) {
  const Json& body = object.body();
  const Json& metadata = body.value("metadata", Json::object());
  if (metadata.contains("name") && metadata["name"].is_string() &&
      !metadata["name"].get<std::string>().empty()) {
    std::string name = metadata["name"].get<std::string>();
    if (auto why = name_problem(object, name); !why.empty())
      problems.push_back({object.location().file, object.line_of("/metadata/name"), "metadata.name",
                          fmt::format("\"{}\" {}", name, why)});
  }
  if (metadata.contains("namespace") && metadata["namespace"].is_string() &&
      !metadata["namespace"].get<std::string>().empty() &&
      !is_dns_label(metadata["namespace"].get<std::string>()))
    problems.push_back({object.location().file, object.line_of("/metadata/namespace"), "metadata.namespace",
                        fmt::format("\"{}\" must be a DNS-1123 label (a namespace's name)",
                                    metadata["namespace"].get<std::string>())});
}

// The objects from `first` on that have an identity, packed: one file's
// trees at a time, so a set is never whole as trees. The others are dropped
// in place (a second array of the objects cost as much again), their
// problems reported.
void keep_identified(std::vector<Object>& objects, std::size_t first, std::vector<Problem>& problems) {
  std::size_t kept = first;
  for (std::size_t index = first; index < objects.size(); ++index) {
    auto found = identity_problems(objects[index]);
    if (!found.empty()) {
      problems.insert(problems.end(), found.begin(), found.end());
      continue;
    }
    objects[index].pack();
    if (kept != index) objects[kept] = std::move(objects[index]);
    ++kept;
  }
  objects.erase(objects.begin() + static_cast<std::ptrdiff_t>(kept), objects.end());
}

}  // namespace

bool is_list_document(const Json& value) {
  if (!value.is_object() || !value.contains("items")) return false;
  auto kind = value.find("kind");
  return kind != value.end() && kind->is_string() && kind->get<std::string>().ends_with("List");
}

std::vector<Problem> identity_problems(const Object& object) {
  std::vector<Problem> problems;
  check_string_field(object, "/apiVersion", "apiVersion", true, problems);
  check_string_field(object, "/kind", "kind", true, problems);
  const Json& body = object.body();
  if (body.contains("metadata") && !body["metadata"].is_object()) {
    problems.push_back(
        {object.location().file, object.line_of("/metadata"), "metadata", "must be an object"});
    return problems;
  }
  check_string_field(object, "/metadata/name", "metadata.name", true, problems);
  check_string_field(object, "/metadata/namespace", "metadata.namespace", false, problems);
  if (problems.empty()) check_name_formats(object, problems);
  for (const char* map_field : {"labels", "annotations"}) {
    std::string pointer = fmt::format("/metadata/{}", map_field);
    if (!body.contains(Json::json_pointer(pointer))) continue;
    const Json& map = body.at(Json::json_pointer(pointer));
    if (map.is_null()) continue;
    if (!map.is_object()) {
      problems.push_back({object.location().file, object.line_of(pointer),
                          fmt::format("metadata.{}", map_field), "must be a map of strings"});
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

std::vector<Object> parse_manifests(std::vector<ManifestFile> files, const ParseOptions& options) {
  std::vector<Object> objects;
  std::vector<Problem> problems;
  for (auto& file : files) {
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
    std::size_t first = objects.size();
    try {
      for (auto& document : model::parse_yaml_documents(file.content, file.path, options.yaml_limits)) {
        if (file.sops_metadata) drop_sops_block(document);
        expand_document(std::move(document), file.path, objects, problems);
      }
    } catch (const InvalidInputError& error) {
      problems.insert(problems.end(), error.problems().begin(), error.problems().end());
    }
    std::string().swap(file.content);  // swapped: assigning an empty string keeps the buffer
    keep_identified(objects, first, problems);
  }
  files = {};
  auto duplicates = duplicate_problems(objects);
  problems.insert(problems.end(), duplicates.begin(), duplicates.end());
  if (!problems.empty()) {
    std::stable_sort(problems.begin(), problems.end(), [](const Problem& a, const Problem& b) {
      return std::tie(a.file, a.line) < std::tie(b.file, b.line);
    });
    throw InvalidInputError(std::move(problems));
  }
  return objects;
}

}  // namespace opctl::source
