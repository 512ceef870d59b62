// The desired set looked up by kind and name, for checks of references
// between objects (a RoleBinding's Role, a Pod's ConfigMap).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/object.hpp"
#include "plan/group_kind.hpp"

namespace opctl::validate {

class DesiredIndex {
 public:
  // `objects` must outlive the index. Their namespaces should already be
  // defaulted; an empty namespace is treated as unknown and matches any.
  explicit DesiredIndex(const std::vector<model::Object>& objects);

  // Whether the set has any object of this kind.
  bool has_kind(const plan::GroupKind& kind) const;
  // The object of this kind and name in `namespace_name`; an empty namespace
  // on either side matches any namespace. nullptr when there is none.
  const model::Object* find(const plan::GroupKind& kind, const std::string& namespace_name,
                            const std::string& name) const;
  // The names of this kind in `namespace_name` (same matching), for "did you mean".
  std::vector<std::string> names(const plan::GroupKind& kind, const std::string& namespace_name) const;
  const std::vector<model::Object>& objects() const { return objects_; }

 private:
  const std::vector<model::Object>& objects_;
  std::multimap<plan::GroupKind, const model::Object*> by_kind_;
  // find() runs once per reference (thousands in a big set): by kind and
  // name, so it costs a lookup, not a scan of every object of the kind.
  std::multimap<std::pair<plan::GroupKind, std::string>, const model::Object*> by_name_;
};

}  // namespace opctl::validate
