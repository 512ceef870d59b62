#include "install/rbac_rules.hpp"

#include <fmt/format.h>

#include <set>

#include "config/run_config.hpp"
#include "install/kind_children.hpp"
#include "model/error.hpp"

namespace opctl::install {
namespace {

using model::Json;
using model::Object;

const std::string k_rbac_group = "rbac.authorization.k8s.io";

// Get, apply and delete limited to the objects' names. `create` cannot be
// limited that way (the authorizer decides before the name is known), nor can
// `list`, which reads a collection: the live-state LIST (and --prune's LIST by
// the ApplySet label) needs it open.
const Verbs k_named_verbs = {"get", "patch", "delete"};
const Verbs k_open_cluster_verbs = {"create", "list"};

class Builder {
 public:
  explicit Builder(const RbacInputs& inputs) : inputs_(inputs) {}

  RbacRules build(const std::vector<Object>& desired) {
    for (const auto& object : desired)
      add_object(object);
    for (const auto& object : desired)
      add_escalation(object);
    for (const auto& object : desired)
      add_custom_kind(object);
    add_prune_lists();
    add_bookkeeping();
    if (!problems_.empty()) throw InvalidInputError(std::move(problems_));
    return std::move(rules_);
  }

 private:
  std::optional<ResourceRef> resource(const model::GroupVersionKind& gvk, const Object& cause) {
    if (auto found = inputs_.lookup(gvk)) return found;
    problems_.push_back({cause.location().file, cause.line_of("/kind"), "kind",
                         fmt::format("cannot tell which resource serves kind \"{}\" in apiVersion \"{}\"",
                                     gvk.kind, gvk.api_version())});
    return std::nullopt;
  }

  void add_object(const Object& object) {
    auto found = resource(object.gvk(), object);
    if (!found) return;
    if (found->namespaced) {
      rules_.namespaced[object.namespace_name()].allow(found->api_group, found->resource, k_manage_verbs);
      namespaced_resources_.insert({found->api_group, found->resource});
      return;
    }
    rules_.cluster.allow(found->api_group, found->resource, k_open_cluster_verbs);
    rules_.cluster.allow_named(found->api_group, found->resource, k_named_verbs, object.name());
  }

  // The API server lets a subject create a Role only with permissions it
  // holds itself (no escalation): so opctl holds the rules of the roles it
  // applies, and `bind` on the roles its bindings reference.
  void add_escalation(const Object& object) {
    if (object.gvk().group != k_rbac_group) return;
    const Json& body = object.body();
    const std::string& kind = object.kind();
    if (kind == "Role" || kind == "ClusterRole") {
      PolicyRules& target = kind == "Role" ? rules_.namespaced[object.namespace_name()] : rules_.cluster;
      for (const auto& rule : body.value("rules", Json::array()))
        if (kind == "ClusterRole" || !rule.contains("nonResourceURLs")) target.add_rule(rule);
      return;
    }
    if (kind != "RoleBinding" && kind != "ClusterRoleBinding") return;
    PolicyRules& target = kind == "RoleBinding" ? rules_.namespaced[object.namespace_name()] : rules_.cluster;
    allow_binding(target, body);
  }

  // `bind` on the role a binding references, even one the set defines and
  // whose rules opctl holds: a Role and its binding are applied at once, and
  // without `bind` the API server reads the role's rules to allow the binding,
  // which fails (NotFound) while the role is not created yet.
  static void allow_binding(PolicyRules& target, const Json& binding) {
    const Json role_ref = binding.value("roleRef", Json::object());
    std::string role_name = role_ref.value("name", "");
    if (role_name.empty()) return;
    std::string resource = role_ref.value("kind", "") == "Role" ? "roles" : "clusterroles";
    target.allow_named(k_rbac_group, resource, {"bind"}, role_name);
  }

  // Roles and RoleBindings among a custom resource's children need what the set's own do.
  static void add_child_rbac(kinds::KindReconciler& reconciler, const Object& object, PolicyRules& rules) {
    for (const auto& child : first_children(reconciler, object)) {
      if (model::GroupVersionKind::from(child.value("apiVersion", ""), "").group != k_rbac_group) continue;
      std::string kind = child.value("kind", "");
      if (kind == "Role")
        for (const auto& rule : child.value("rules", Json::array()))
          rules.add_rule(rule);
      if (kind == "RoleBinding") allow_binding(rules, child);
    }
  }

  // A custom resource's reconciler reads and writes the resource and its
  // status, owns children of its child kinds in the resource's namespace,
  // records Events on it (when it says it may), and reads related objects by name.
  void add_custom_kind(const Object& object) {
    if (inputs_.registry == nullptr) return;
    kinds::KindReconciler* reconciler = inputs_.registry->find(object.gvk());
    if (reconciler == nullptr) return;
    auto own = resource(object.gvk(), object);
    if (!own || !own->namespaced) return;
    PolicyRules& rules = rules_.namespaced[object.namespace_name()];
    rules.allow(own->api_group, own->resource + "/status", {"get", "patch"});
    for (const auto& gvk : reconciler->child_kinds())
      if (auto child = resource(gvk, object)) rules.allow(child->api_group, child->resource, k_manage_verbs);
    add_child_rbac(*reconciler, object, rules);
    if (reconciler->records_events()) rules.allow("", "events", {"create"});  // on the resource itself
    std::vector<kinds::RelatedRef> related;
    try {
      related = reconciler->related(object.body());
    } catch (const std::exception&) {
      return;  // the spec checks report what is wrong with it
    }
    for (const auto& reference : related)
      if (auto found = resource(reference.gvk, object))
        rules_.namespaced[reference.namespace_name].allow_named(found->api_group, found->resource, {"get"},
                                                                reference.name);
  }

  // With --prune, the pass lists every namespaced kind of the set in every
  // namespace of the set (and the config's), by the ApplySet label.
  void add_prune_lists() {
    rules_.namespaced[inputs_.config_namespace];  // the parent's namespace is listed too
    for (auto& [namespace_name, rules] : rules_.namespaced)
      for (const auto& [group, resource] : namespaced_resources_)
        rules.allow(group, resource, {"list"});
  }

  // The Lease that keeps two runs apart, the ApplySet parent Secret that
  // records the inventory and the Events about it, all in the config's namespace. Their `create`
  // cannot be limited to their names (see k_named_verbs).
  void add_bookkeeping() {
    PolicyRules& rules = rules_.namespaced[inputs_.config_namespace];
    std::string name = config::set_object_name(inputs_.config_name);
    rules.allow("", "secrets", {"create"});
    rules.allow_named("", "secrets", {"get", "patch"}, name);
    rules.allow("", "events", {"create"});  // each pass's story, on the parent (cluster_events.hpp)
    if (!inputs_.lease) return;
    rules.allow("coordination.k8s.io", "leases", {"create"});
    rules.allow_named("coordination.k8s.io", "leases", {"get", "update"}, name);
  }

  const RbacInputs& inputs_;
  RbacRules rules_;
  std::set<std::pair<std::string, std::string>> namespaced_resources_;
  std::vector<Problem> problems_;
};

}  // namespace

RbacRules compute_rbac(const std::vector<Object>& desired, const RbacInputs& inputs) {
  return Builder(inputs).build(desired);
}

}  // namespace opctl::install
