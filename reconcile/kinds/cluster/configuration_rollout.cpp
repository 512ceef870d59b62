// status.configuration: whether the spec.postgresql of this generation is in
// force on every instance, and whether a reload did it or a restart had to.
// The instance managers apply it (reload, then report pending_restart);
// rolling_update.cpp restarts the instances that report a pending restart.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {
namespace {

void add_names(const std::string& list, std::set<std::string>& names) {
  for (std::size_t start = 0; start < list.size();) {
    auto comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) names.insert(list.substr(start, comma - start));
    start = comma + 1;
  }
}

}  // namespace

void ClusterPass::record_configuration() {
  ConfigurationStatus& status = status_.configuration;
  std::string wanted = configuration_hash(spec_.postgresql);
  // No status yet: the instances loaded whatever they have when they started.
  bool first = status.hash.empty();
  if (status.hash != wanted) {
    status = ConfigurationStatus{};
    status.hash = wanted;
  }
  bool everywhere = true;
  std::set<std::string> parameters(status.restart_parameters.begin(), status.restart_parameters.end());
  status.pending_restart.clear();
  for (const auto& [serial, instance] : view_.instances) {
    if (instance.config_hash() != wanted) everywhere = false;
    if (std::string pending = instance.pending_restart(); !pending.empty()) {
      status.pending_restart.push_back(instance.name);
      add_names(pending, parameters);
    }
  }
  status.restart_parameters.assign(parameters.begin(), parameters.end());
  // Sticky for this configuration: once an instance needed a restart, it was applied by restarts.
  if (!status.pending_restart.empty()) status.applied_by = "Restart";
  if (everywhere && status.pending_restart.empty()) {
    status.phase = "Applied";
    if (status.applied_by.empty()) status.applied_by = first ? "Start" : "Reload";
  } else {
    status.phase = "Applying";
  }
}

}  // namespace opctl::kinds::cluster
