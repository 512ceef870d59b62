#include "source/sops_metadata.hpp"

#include <fmt/format.h>

namespace opctl::source::sops {
namespace {

int line_of(const YAML::Node& node) {
  return node.Mark().is_null() ? 0 : node.Mark().line + 1;
}

std::string scalar(const YAML::Node& map, const char* key) {
  const YAML::Node value = map[key];
  return value && value.IsScalar() ? value.Scalar() : "";
}

std::optional<model::GoPattern> regex(const YAML::Node& map, const char* key, const std::string& file,
                                      std::vector<Problem>& problems) {
  std::string pattern = scalar(map, key);
  if (pattern.empty()) return std::nullopt;
  std::string error;
  auto compiled = model::GoPattern::compile(pattern, error);
  if (!compiled)
    problems.push_back(
        {file, line_of(map[key]), std::string("sops.") + key,
         fmt::format("cannot read the pattern \"{}\" (RE2 syntax, as SOPS reads it): {}", pattern, error)});
  return compiled;
}

bool matches_any(const model::GoPattern& pattern, const std::vector<std::string>& path) {
  for (const auto& key : path)
    if (pattern.search(key)) return true;
  return false;
}

bool ends_any(const std::string& suffix, const std::vector<std::string>& path) {
  for (const auto& key : path)
    if (key.ends_with(suffix)) return true;
  return false;
}

}  // namespace

bool Metadata::should_be_encrypted(const std::vector<std::string>& path) const {
  bool encrypted = true;
  if (!unencrypted_suffix.empty() && ends_any(unencrypted_suffix, path)) encrypted = false;
  if (!encrypted_suffix.empty()) encrypted = ends_any(encrypted_suffix, path);
  if (unencrypted_regex && matches_any(*unencrypted_regex, path)) encrypted = false;
  if (encrypted_regex) encrypted = matches_any(*encrypted_regex, path);
  return encrypted;
}

std::optional<Metadata> read_metadata(const YAML::Node& document, const std::string& file,
                                      std::vector<Problem>& problems) {
  if (!document.IsMap()) return std::nullopt;
  const YAML::Node block = document["sops"];
  if (!block || !block.IsMap()) return std::nullopt;
  Metadata metadata;
  int line = line_of(block);
  metadata.mac = scalar(block, "mac");
  metadata.mac_line = block["mac"] ? line_of(block["mac"]) : line;
  metadata.last_modified = scalar(block, "lastmodified");
  if (metadata.mac.empty())
    problems.push_back({file, line, "sops.mac", "the sops block has no mac: not a file SOPS encrypted"});
  if (metadata.last_modified.empty())
    problems.push_back({file, line, "sops.lastmodified", "the sops block has no lastmodified"});
  if (const YAML::Node age = block["age"]; age && age.IsSequence())
    for (const auto& stanza : age)
      if (stanza.IsMap()) metadata.age.push_back({scalar(stanza, "recipient"), scalar(stanza, "enc")});
  for (const char* other : {"pgp", "kms", "gcp_kms", "azure_kv", "hc_vault"})
    if (const YAML::Node keys = block[other]; keys && keys.IsSequence() && keys.size() > 0)
      metadata.other_key_types.emplace_back(other);
  if (const YAML::Node groups = block["key_groups"]; groups && groups.IsSequence() && groups.size() > 0)
    metadata.key_groups = true;
  metadata.mac_only_encrypted = scalar(block, "mac_only_encrypted") == "true";
  metadata.unencrypted_suffix = scalar(block, "unencrypted_suffix");
  metadata.encrypted_suffix = scalar(block, "encrypted_suffix");
  metadata.unencrypted_regex = regex(block, "unencrypted_regex", file, problems);
  metadata.encrypted_regex = regex(block, "encrypted_regex", file, problems);
  metadata.comment_rules = !scalar(block, "unencrypted_comment_regex").empty() ||
                           !scalar(block, "encrypted_comment_regex").empty();
  return metadata;
}

}  // namespace opctl::source::sops
