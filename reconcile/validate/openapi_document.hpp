// One OpenAPI v3 document as the API server serves it per group-version
// (GET /openapi/v3/apis/apps/v1): the schemas of its kinds, found through
// x-kubernetes-group-version-kind, and the scopes its paths imply.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/go_pattern.hpp"
#include "model/object.hpp"

namespace opctl::validate {

class OpenApiDocument {
 public:
  // Throws opctl::Error (invalid_input) naming `origin` when `document` has
  // no components.schemas object.
  OpenApiDocument(model::Json document, const std::string& origin);
  // The indexes point into the document.
  OpenApiDocument(const OpenApiDocument&) = delete;
  OpenApiDocument& operator=(const OpenApiDocument&) = delete;

  // The schema of a kind, or nullptr when the document does not define it.
  const model::Json* schema_for(const model::GroupVersionKind& gvk) const;
  // The kinds of this document's group-version, for "did you mean".
  std::vector<std::string> kind_names(const std::string& group_version) const;
  // A "#/components/schemas/NAME" reference; nullptr when it does not resolve.
  const model::Json* resolve(const std::string& ref) const;
  // Whether a kind is namespaced, from its create path; nullopt when the
  // document has no create path for it.
  std::optional<bool> namespaced(const model::GroupVersionKind& gvk) const;
  // Where the document came from (a URL or a file), for messages.
  const std::string& origin() const { return origin_; }
  // One of its `pattern`s, compiled once; nullptr when RE2 refuses it (`error` says why).
  const model::GoPattern* pattern(const std::string& text, std::string& error) const {
    return patterns_->get(text, error);
  }

 private:
  void index_kinds();
  void index_scopes();

  model::Json document_;
  std::string origin_;
  std::map<model::GroupVersionKind, const model::Json*> kinds_;
  std::map<model::GroupVersionKind, bool> scopes_;
  std::unique_ptr<model::GoPatternCache> patterns_ = std::make_unique<model::GoPatternCache>();
};

// Parses a document's JSON text without its "description" texts: no check
// reads them, and they are most of a document (the parsed core/v1 and the
// set's CRDs were the largest part of a pass's memory while it validates).
// A property named "description" (a key of a "properties" map) is kept.
// Returns a discarded value when `text` is not JSON.
model::Json parse_without_descriptions(const std::string& text);

// The key of a group-version in GET /openapi/v3: "api/v1", "apis/apps/v1".
std::string openapi_path(const std::string& group_version);
// The file name of a group-version in a schema dir: "api__v1.json", "apis__apps__v1.json".
std::string schema_file_name(const std::string& group_version);

}  // namespace opctl::validate
