// YAML <-> JSON for Kubernetes manifests, with the source line of every field
// kept so that errors can point at file:line.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/object.hpp"

namespace opctl::model {

struct YamlDocument {
  Json value;
  int line = 0;                            // 1-based line where the document starts
  std::map<std::string, int> field_lines;  // JSON pointer -> 1-based line
};

struct YamlLimits {
  // Aliases are expanded when converting to JSON; a small file with nested
  // aliases (a "billion laughs" bomb) would otherwise expand without end.
  std::size_t max_nodes = 1'000'000;
  std::size_t max_depth = 200;
};

// Parses every document of a YAML stream (empty documents are skipped).
// Scalars are typed, and merge keys (`<<: *base`, `<<: [*a, *b]`) merged, the
// way kubectl's YAML reader (go-yaml v2) does it.
// Throws InvalidInputError naming `file` and the line on a syntax error.
std::vector<YamlDocument> parse_yaml_documents(std::string_view text, const std::string& file,
                                               const YamlLimits& limits = {});

// Renders JSON as block-style YAML (keys in the JSON's order).
std::string to_yaml(const Json& value);

// A key as one RFC 6901 JSON pointer token: "~" becomes "~0", "/" "~1".
std::string escape_pointer_token(const std::string& token);

}  // namespace opctl::model
