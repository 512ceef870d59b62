#include "cluster_objects.hpp"

#include <fmt/format.h>

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/kind_reconciler.hpp"
#include "kube/api_error.hpp"
#include "model/error.hpp"
#include "resource_lookup.hpp"

namespace opctl::cli {
namespace {

namespace cluster = kinds::cluster;

// The kinds a Cluster's pass creates (ClusterReconciler::child_kinds()), those a person asks about.
const model::GroupVersionKind k_cluster_child_kinds[] = {{"", "v1", "Pod"},
                                                         {"", "v1", "PersistentVolumeClaim"},
                                                         {"", "v1", "Service"},
                                                         {"", "v1", "Secret"},
                                                         {"batch", "v1", "Job"},
                                                         {"policy", "v1", "PodDisruptionBudget"},
                                                         {"coordination.k8s.io", "v1", "Lease"}};

}  // namespace

ClusterObjects read_cluster_objects(kube::ApiClient& client, const std::string& namespace_name,
                                    const std::string& name) {
  ClusterObjects objects;
  objects.namespace_name = namespace_name;
  auto clusters = resource_or_fail(client, {cluster::k_group, cluster::k_version, "Cluster"});
  objects.cluster = get_or_fail(client, clusters, namespace_name, name);
  std::string uid = objects.cluster["metadata"].value("uid", "");

  std::vector<kube::ListTarget> targets;
  for (const auto& gvk : k_cluster_child_kinds) {
    auto info = client.mapper().find(gvk);
    if (!info) continue;  // a kind the server does not serve has no objects
    kube::ListTarget target{*info, namespace_name, {}, ""};
    target.options.label_selector = std::string(kinds::k_owner_uid_label) + "=" + uid;
    targets.push_back(std::move(target));
  }
  bool backups_served = false;
  if (auto backups = client.mapper().find({cluster::k_group, cluster::k_version, "Backup"})) {
    targets.push_back({*backups, namespace_name, {}, ""});
    backups_served = true;
  }
  // A user-given server certificate and its CA (spec.certificates) are the Cluster's too, though not its
  // children.
  const model::Json& certificates =
      objects.cluster.value("/spec/certificates"_json_pointer, model::Json::object());
  std::vector<kube::HttpRequest> user_secrets;
  if (auto secrets = client.mapper().find({"", "v1", "Secret"}))
    for (const char* field : {"serverTLSSecret", "serverCASecret"})
      if (std::string secret = certificates.value(field, ""); !secret.empty())
        user_secrets.push_back(client.get_request(*secrets, namespace_name, secret));
  for (auto& result : client.execute(user_secrets))
    if (result.ok()) objects.children.push_back(std::move(result.object));
  auto outcomes = client.list_all(targets);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].status.ok()) throw kube::ApiError(outcomes[i].status);
    bool is_backups = backups_served && i + 1 == outcomes.size();
    auto& into = is_backups ? objects.backups : objects.children;
    for (auto& item : outcomes[i].items)
      into.push_back(std::move(item));
  }
  return objects;
}

std::string instance_argument(const std::string& cluster_name, const std::string& given, const char* flag) {
  bool digits =
      !given.empty() && given.size() < 9 && given.find_first_not_of("0123456789") == std::string::npos;
  std::string name = digits ? cluster::instance_name(cluster_name, std::stoi(given)) : given;
  if (!cluster::serial_of(cluster_name, name))
    throw InvalidInputError(
        {Problem{"", 0, flag,
                 fmt::format("\"{}\" is not an instance of {}: give its Pod name ({}-N) or N", given,
                             cluster_name, cluster_name)}});
  return name;
}

}  // namespace opctl::cli
