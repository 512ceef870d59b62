#include "install/policy_rules.hpp"

#include <algorithm>

namespace opctl::install {

using model::Json;

void PolicyRules::allow(const std::string& api_group, const std::string& resource, const Verbs& verbs) {
  open_[{api_group, resource}].insert(verbs.begin(), verbs.end());
}

void PolicyRules::allow_named(const std::string& api_group, const std::string& resource, const Verbs& verbs,
                              const std::string& name) {
  Named& named = named_[{api_group, resource}];
  named.verbs.insert(verbs.begin(), verbs.end());
  named.names.insert(name);
}

void PolicyRules::add_rule(const Json& rule) {
  if (covers(rule)) return;
  if (std::find(verbatim_.begin(), verbatim_.end(), rule) == verbatim_.end()) verbatim_.push_back(rule);
}

bool PolicyRules::covers(const Json& rule) const {
  if (rule.contains("nonResourceURLs")) return false;
  auto strings = [&rule](const char* key) {
    std::vector<std::string> values;
    for (const auto& value : rule.value(key, Json::array()))
      if (value.is_string()) values.push_back(value.get<std::string>());
    return values;
  };
  auto groups = strings("apiGroups"), resources = strings("resources"), verbs = strings("verbs");
  auto names = strings("resourceNames");
  if (groups.empty() || resources.empty() || verbs.empty()) return false;
  for (const auto& group : groups)
    for (const auto& resource : resources)
      for (const auto& verb : verbs) {
        if (group == "*" || resource == "*" || verb == "*") return false;
        if (names.empty() && !allows(group, resource, verb)) return false;
        for (const auto& name : names)
          if (!allows_named(group, resource, verb, name)) return false;
      }
  return true;
}

bool PolicyRules::allows(const std::string& api_group, const std::string& resource,
                         const std::string& verb) const {
  auto found = open_.find({api_group, resource});
  return found != open_.end() && found->second.contains(verb);
}

bool PolicyRules::allows_named(const std::string& api_group, const std::string& resource,
                               const std::string& verb, const std::string& name) const {
  if (allows(api_group, resource, verb)) return true;
  auto found = named_.find({api_group, resource});
  return found != named_.end() && found->second.verbs.contains(verb) && found->second.names.contains(name);
}

Json PolicyRules::to_json() const {
  Json rules = Json::array();
  // Resources of one group with the same verbs share a rule: short and stable.
  std::map<std::pair<std::string, Verbs>, std::vector<std::string>> grouped;
  for (const auto& [resource, verbs] : open_)
    grouped[{resource.first, verbs}].push_back(resource.second);
  for (const auto& [key, resources] : grouped)
    rules.push_back({{"apiGroups", {key.first}}, {"resources", resources}, {"verbs", key.second}});
  for (const auto& [resource, named] : named_) {
    Verbs verbs;
    for (const auto& verb : named.verbs)
      if (!allows(resource.first, resource.second, verb)) verbs.insert(verb);
    if (verbs.empty()) continue;
    rules.push_back({{"apiGroups", {resource.first}},
                     {"resources", {resource.second}},
                     {"resourceNames", named.names},
                     {"verbs", verbs}});
  }
  for (const auto& rule : verbatim_)
    rules.push_back(rule);
  return rules;
}

}  // namespace opctl::install
