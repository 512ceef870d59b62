// Reading fields of manifests that may have any shape: a field of the wrong
// type reads as absent (the schema check reports it), never as an exception.
#pragma once

#include <string>

#include "model/object.hpp"

namespace opctl::validate {

// The member `key` of an object, or nullptr.
inline const model::Json* field(const model::Json& value, const std::string& key) {
  if (!value.is_object()) return nullptr;
  auto found = value.find(key);
  return found == value.end() ? nullptr : &*found;
}

// The string member `key`, or "" when absent or not a string.
inline std::string text_field(const model::Json& value, const std::string& key) {
  const model::Json* found = field(value, key);
  return found != nullptr && found->is_string() ? found->get<std::string>() : "";
}

// The member `key` when it is `true`.
inline bool true_field(const model::Json& value, const std::string& key) {
  const model::Json* found = field(value, key);
  return found != nullptr && *found == true;
}

}  // namespace opctl::validate
