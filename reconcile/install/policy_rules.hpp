// An accumulator of RBAC permissions that renders them as the fewest, stably
// ordered PolicyRules: open grants (any name) and grants limited to names.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/object.hpp"

namespace opctl::install {

using Verbs = std::set<std::string>;

class PolicyRules {
 public:
  // `verbs` on every object of the resource ("deployments", "clusters/status").
  void allow(const std::string& api_group, const std::string& resource, const Verbs& verbs);
  // `verbs` on the object called `name` only.
  void allow_named(const std::string& api_group, const std::string& resource, const Verbs& verbs,
                   const std::string& name);
  // A rule taken as written (the rules of a Role the desired set applies),
  // unless the grants so far already cover it.
  void add_rule(const model::Json& rule);
  // Whether every group, resource, name and verb of `rule` is allowed (a
  // wildcard or a non-resource URL never is).
  bool covers(const model::Json& rule) const;

  bool empty() const { return open_.empty() && named_.empty() && verbatim_.empty(); }
  // Whether `verb` is allowed on the resource for any name.
  bool allows(const std::string& api_group, const std::string& resource, const std::string& verb) const;
  // Whether `verb` is allowed on the object `name` (by an open or a named grant).
  bool allows_named(const std::string& api_group, const std::string& resource, const std::string& verb,
                    const std::string& name) const;

  // Open grants first (one rule per group and verb set), then named grants
  // (verbs an open grant already covers left out), then the verbatim rules.
  model::Json to_json() const;

 private:
  using Resource = std::pair<std::string, std::string>;  // api group, resource
  struct Named {
    Verbs verbs;
    std::set<std::string> names;
  };
  std::map<Resource, Verbs> open_;
  std::map<Resource, Named> named_;
  std::vector<model::Json> verbatim_;
};

}  // namespace opctl::install
