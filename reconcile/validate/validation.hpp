// Validation of a desired set beyond what parsing checks: scopes, the wave
// annotation, OpenAPI schemas, references inside the set, custom kinds.
// Every finding is data; nothing here throws for a bad manifest.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/error.hpp"
#include "model/object.hpp"
#include "validate/live_crds.hpp"

namespace opctl::validate {

class KindValidator;
class SchemaSource;

struct Finding {
  enum class Severity { error, warning } severity = Severity::error;
  Problem problem;     // no file when it is about the cluster, not the manifests
  std::string object;  // ObjectKey::to_string() of the object it is about; empty for a whole file
};

std::string to_string(Finding::Severity severity);

struct ValidationReport {
  std::size_t objects = 0;
  std::vector<Finding> findings;   // by file, then line
  std::vector<std::string> notes;  // what could not be checked, and why (no finding)

  std::size_t count(Finding::Severity severity) const;
  // Warnings do not make a set invalid.
  bool valid() const { return count(Finding::Severity::error) == 0; }
};

// Answers whether the cluster serves a kind and whether it is namespaced;
// nullopt: the cluster does not serve it.
using ClusterScopeLookup = std::function<std::optional<bool>(const model::GroupVersionKind&)>;

struct ValidateOptions {
  // Where OpenAPI v3 documents come from; nullptr skips schema checks.
  SchemaSource* schemas = nullptr;
  // The cluster's discovery; unset when validating offline (a built-in table
  // and the CRDs in the set answer instead).
  ClusterScopeLookup cluster_scope;
  // The namespace of namespaced objects that name none (-n, or the context's);
  // empty when unknown, in which case such objects match any namespace.
  std::string default_namespace;
  // Checks for custom kinds, each asked whether it handles a kind. A kind
  // with a validator is checked by it instead of against a schema.
  std::vector<const KindValidator*> kind_validators;
  // The CRDs of the kinds opctl itself serves. Their kinds are known even
  // where the cluster does not serve them yet: that is a warning (install the
  // CRDs), not an error, and their validators check their specs.
  std::vector<model::Json> known_crds;
  // The cluster's CRDs, for custom resources whose group-version has no
  // usable published document (not published yet, no schema for the kind, or
  // still changing when `schemas` gave up): they are checked against their
  // CRD's own schema instead. Unset: no such fallback, and a document that
  // did not settle is a ClusterError.
  LiveCrdLookup live_crd;
};

// Validates objects that already passed parsing (identity, duplicates).
ValidationReport validate_objects(std::vector<model::Object> objects, const ValidateOptions& options);

// The same on the caller's objects, not a copy of them (a big set's objects
// are tens of MiB): the namespaces validation defaults are defaulted in them.
ValidationReport validate_in_place(std::vector<model::Object>& objects, const ValidateOptions& options);

// Adds problems found while loading (syntax, identity, duplicates) as errors.
void add_errors(ValidationReport& report, const std::vector<Problem>& problems);
// Orders findings by file and line, so output reads top to bottom.
void sort_findings(ValidationReport& report);

// The report as JSON (documented in opctl-validate(1)).
model::Json report_to_json(const ValidationReport& report);

}  // namespace opctl::validate
