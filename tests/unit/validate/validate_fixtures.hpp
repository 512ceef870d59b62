// Shared by the validate tests: objects from YAML text and the OpenAPI v3
// fixture documents in tests/unit/data/schemas (trimmed from Kubernetes 1.36).
#pragma once

#include <string>
#include <vector>

#include "model/object.hpp"
#include "validate/manifest_loading.hpp"
#include "validate/schema_source.hpp"

namespace opctl::validate::testing {

inline std::string schema_dir() {
  return std::string(OPCTL_TEST_DATA_DIR) + "/schemas";
}

// The objects of one file; problems found while parsing fail the test's expectations elsewhere.
inline std::vector<model::Object> objects_from(const std::string& yaml,
                                               const std::string& file = "test.yaml") {
  return load_manifests({{file, yaml}}).objects;
}

}  // namespace opctl::validate::testing
