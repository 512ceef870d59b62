// The Roles, ClusterRole and their bindings to opctl's ServiceAccount.
#include "install/install_manifests.hpp"
#include "install/object_metadata.hpp"

namespace opctl::install {
namespace {

using model::Json;

const char* const k_rbac_api = "rbac.authorization.k8s.io/v1";

// Cluster-scoped names must not clash between installs in other namespaces.
std::string cluster_name(const InstallOptions& options) {
  return "opctl:" + options.namespace_name + ":" + options.config_name;
}

Json subjects(const InstallOptions& options) {
  return Json::array({{{"kind", "ServiceAccount"},
                       {"name", service_account_name(options)},
                       {"namespace", options.namespace_name}}});
}

Json binding(const InstallOptions& options, const std::string& kind, const std::string& namespace_name,
             const std::string& role_kind, const std::string& role_name) {
  std::string name = namespace_name.empty() ? cluster_name(options) : service_account_name(options);
  return {{"apiVersion", k_rbac_api},
          {"kind", kind},
          {"metadata", install_metadata(options, name, namespace_name)},
          {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", role_name}}},
          {"subjects", subjects(options)}};
}

}  // namespace

std::vector<Json> rbac_objects(const InstallOptions& options, const RbacRules& rbac) {
  if (options.cluster_admin)
    return {binding(options, "ClusterRoleBinding", "", "ClusterRole", "cluster-admin")};
  std::vector<Json> objects;
  if (!rbac.cluster.empty()) {
    objects.push_back({{"apiVersion", k_rbac_api},
                       {"kind", "ClusterRole"},
                       {"metadata", install_metadata(options, cluster_name(options), "")},
                       {"rules", rbac.cluster.to_json()}});
    objects.push_back(binding(options, "ClusterRoleBinding", "", "ClusterRole", cluster_name(options)));
  }
  std::string name = service_account_name(options);
  for (const auto& [namespace_name, rules] : rbac.namespaced) {
    if (rules.empty()) continue;
    objects.push_back({{"apiVersion", k_rbac_api},
                       {"kind", "Role"},
                       {"metadata", install_metadata(options, name, namespace_name)},
                       {"rules", rules.to_json()}});
    objects.push_back(binding(options, "RoleBinding", namespace_name, "Role", name));
  }
  return objects;
}

}  // namespace opctl::install
