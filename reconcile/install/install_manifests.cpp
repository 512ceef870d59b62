#include "install/install_manifests.hpp"

#include <fmt/format.h>

#include "config/run_config.hpp"
#include "install/object_metadata.hpp"

namespace opctl::install {
namespace {

using model::Json;

Json namespace_object(const std::string& name, const Json& labels) {
  Json metadata = {{"name", name}};
  if (!labels.empty()) metadata["labels"] = labels;
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", metadata}};
}

Json config_map(const InstallOptions& options) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", install_metadata(options, service_account_name(options), options.namespace_name)},
          {"data", {{"opctl.yaml", options.config_text}}}};
}

}  // namespace

std::string minimal_config_text(const std::string& config_name, const std::string& namespace_name) {
  return fmt::format(
      "# Written by opctl install: the Lease and the ApplySet parent Secret are {2} in {1}.\n"
      "apiVersion: opctl.io/v1alpha1\n"
      "kind: Config\n"
      "metadata:\n"
      "  name: {0}\n"
      "  namespace: {1}\n",
      config_name, namespace_name, config::set_object_name(config_name));
}

// Named as the set's Lease and ApplySet parent, so one name finds all of an install.
std::string service_account_name(const InstallOptions& options) {
  return config::set_object_name(options.config_name);
}

std::vector<Json> install_manifests(const InstallOptions& options, const RbacRules& rbac) {
  std::vector<Json> objects = {namespace_object(options.namespace_name, install_labels(options))};
  // A Role can only be created in a namespace that exists; the set's own
  // Namespaces are created here with their name only, so opctl's apply of
  // the full object later owns every other field.
  if (!options.cluster_admin)
    for (const auto& [namespace_name, rules] : rbac.namespaced)
      if (namespace_name != options.namespace_name && !rules.empty())
        objects.push_back(namespace_object(namespace_name, Json::object()));
  objects.push_back(
      {{"apiVersion", "v1"},
       {"kind", "ServiceAccount"},
       {"metadata", install_metadata(options, service_account_name(options), options.namespace_name)}});
  for (auto& object : rbac_objects(options, rbac))
    objects.push_back(std::move(object));
  objects.push_back(config_map(options));
  objects.push_back(cron_job(options));
  return objects;
}

}  // namespace opctl::install
