// The extension point for custom kinds (opctl.io Cluster, Backup): checks a
// schema cannot express, such as cross-field rules and references.
//
// To plug one in: implement KindValidator next to the kind, in a target that
// links opctl_validate, and put an instance in the list that
// cli/validate_command.cpp passes as ValidateOptions::kind_validators. Today
// that list is kinds::kind_validators(registry), which wraps every reconciler
// registered in kinds::KindRegistry; the registry's CRDs go in
// ValidateOptions::known_crds so the kinds' scopes are known offline.
// validate_objects asks every validator whether it handles each object's kind.
#pragma once

#include <vector>

#include "model/object.hpp"
#include "validate/desired_index.hpp"
#include "validate/validation.hpp"

namespace opctl::validate {

class KindValidator {
 public:
  virtual ~KindValidator() = default;
  // Whether this validator checks objects of this kind (usually a group and kind, any version).
  virtual bool handles(const model::GroupVersionKind& gvk) const = 0;
  // The findings for one object. `desired` is the whole set (namespaces
  // defaulted), for references to other objects. Each finding names the
  // object's file, the field's line (object.line_of) and its field path.
  virtual std::vector<Finding> validate(const model::Object& object, const DesiredIndex& desired) const = 0;
};

}  // namespace opctl::validate
