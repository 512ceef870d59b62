// A place inside an object, kept twice: as a JSON pointer (to find its source
// line) and as the field path users read (spec.containers[0].image).
#pragma once

#include <string>

namespace opctl::validate {

struct FieldPath {
  std::string pointer;  // "/spec/template/spec/containers/0/image"
  std::string field;    // "spec.template.spec.containers[0].image"

  FieldPath child(const std::string& key) const;
  FieldPath index(std::size_t position) const;
  // "metadata.name" -> {"/metadata/name", "metadata.name"}, for names without dots.
  static FieldPath of(const std::string& dotted);
};

}  // namespace opctl::validate
