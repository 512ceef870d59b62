#include "validate/field_path.hpp"

#include <fmt/format.h>

namespace opctl::validate {
namespace {

// RFC 6901: "~" and "/" inside a key become "~0" and "~1".
std::string escape_token(const std::string& key) {
  std::string escaped;
  for (char c : key) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

}  // namespace

FieldPath FieldPath::child(const std::string& key) const {
  return {pointer + "/" + escape_token(key), field.empty() ? key : field + "." + key};
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
