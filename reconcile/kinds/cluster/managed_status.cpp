// status.managedRolesStatus and status.managedDatabasesStatus: what the
// primary's instance manager reports it did with spec.managed
// (opctl.io/managed-status on its Pod), for the declaration of this
// generation; everything declared is pending until the primary reports that
// declaration's hash. The manager applies; the pass only reads.
#include <map>
#include <string>

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {
namespace {

template <typename Declared>
std::map<std::string, ManagedState> declared_states(const std::vector<Declared>& declared,
                                                    const std::map<std::string, ManagedState>& reported,
                                                    bool current) {
  std::map<std::string, ManagedState> out;
  for (const auto& item : declared) {
    auto found = reported.find(item.name);
    out[item.name] = current && found != reported.end() ? found->second : ManagedState{k_state_pending, ""};
  }
  return out;
}

}  // namespace

void ClusterPass::record_managed() {
  const ManagedObjects& wanted = spec_.managed;
  status_.managed_roles = nullptr;
  status_.managed_databases = nullptr;
  if (wanted.empty()) return;
  const Instance* primary = view_.find(status_.current_primary);
  std::string text = primary != nullptr && primary->has_live_pod()
                         ? annotation_of(*primary->pod, k_managed_status_annotation)
                         : "";
  ManagedReport report = ManagedReport::parse(text);
  bool current = !report.hash.empty() && report.hash == managed_hash(wanted);
  if (!wanted.roles.empty())
    status_.managed_roles = managed_status(declared_states(wanted.roles, report.roles, current));
  if (!wanted.databases.empty())
    status_.managed_databases = managed_status(declared_states(wanted.databases, report.databases, current));
}

}  // namespace opctl::kinds::cluster
