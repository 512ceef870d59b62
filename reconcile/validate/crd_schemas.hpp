// The schemas of custom resources as the CustomResourceDefinitions in the set
// declare them. The set's CRD is applied before its custom resources, so its
// schema wins over the one the cluster serves now.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/object.hpp"
#include "validate/openapi_document.hpp"

namespace opctl::validate {

class CrdSchemas {
 public:
  // `origin` names where the CRDs come from, in messages.
  explicit CrdSchemas(const std::vector<model::Object>& objects,
                      const std::string& origin = "the CustomResourceDefinitions in the manifests");

  // The schema of one version of a kind, with apiVersion, kind and metadata
  // added the way the API server adds them; nullptr when no CRD in the set
  // declares a schema for it.
  const model::Json* schema_for(const model::GroupVersionKind& gvk) const;
  // The document to check those schemas with (they have no $refs).
  const OpenApiDocument& document() const { return document_; }

 private:
  std::map<model::GroupVersionKind, model::Json> schemas_;
  OpenApiDocument document_;
};

}  // namespace opctl::validate
