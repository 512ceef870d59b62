#include "validate/field_path.hpp"

#include <fmt/format.h>

#include "model/yaml_document.hpp"

namespace opctl::validate {

FieldPath FieldPath::child(const std::string& key) const {
  return {pointer + "/" + model::escape_pointer_token(key), field.empty() ? key : field + "." + key};
}

FieldPath FieldPath::index(std::size_t position) const {
  return {fmt::format("{}/{}", pointer, position), fmt::format("{}[{}]", field, position)};
}

FieldPath FieldPath::of(const std::string& dotted) {
  FieldPath path;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    auto dot = dotted.find('.', start);
    if (dot == std::string::npos) dot = dotted.size();
    path = path.child(dotted.substr(start, dot - start));
    start = dot + 1;
  }
  return path;
}

}  // namespace opctl::validate
