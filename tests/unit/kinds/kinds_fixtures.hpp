// Shared fixtures for the custom-kind unit tests: a fixed clock and random
// source, and objects parsed from YAML with their source lines.
#pragma once

#include <string>

#include "kinds/kind_reconciler.hpp"
#include "kinds/kind_time.hpp"
#include "model/yaml_document.hpp"
#include "support/fake_clock.hpp"

namespace opctl::kinds::test {

class FixedClock : public opctl::testing::FakeClock {
 public:
  explicit FixedClock(const std::string& now) { set(now); }
  void set(const std::string& now) { set_wall(*parse_time(now)); }
};

class FixedRandom : public RandomSource {
 public:
  std::string token(std::size_t length) override { return std::string(length, 'x'); }
};

inline model::Object object_from_yaml(const std::string& text, const std::string& file = "backup.yaml") {
  auto documents = model::parse_yaml_documents(text, file);
  return model::Object(documents.front().value, {file, documents.front().line},
                       documents.front().field_lines);
}

inline model::Json json_from_yaml(const std::string& text) {
  return model::parse_yaml_documents(text, "inline").front().value;
}

}  // namespace opctl::kinds::test
