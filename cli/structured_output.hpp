// -o json and -o yaml: the same document in either form, as kubectl offers
// both wherever it prints one.
#pragma once

#include <string>

#include "model/object.hpp"

namespace opctl::cli {

inline bool is_structured(const std::string& output) {
  return output == "json" || output == "yaml";
}

// The document as `output` asks: indented JSON or block YAML, ending in a newline.
std::string render_structured(const model::Json& document, const std::string& output);

}  // namespace opctl::cli
