// Everything a cluster needs to run opctl on a schedule, as objects in the
// order they must be applied: Namespaces, the ServiceAccount, RBAC, the
// ConfigMap with opctl.yaml and the CronJob.
#pragma once

#include <vector>

#include "install/install_options.hpp"
#include "install/rbac_rules.hpp"
#include "model/object.hpp"

namespace opctl::install {

// `rbac` is ignored with options.cluster_admin.
std::vector<model::Json> install_manifests(const InstallOptions& options, const RbacRules& rbac);

// The pieces, for tests and for the order above.
std::string service_account_name(const InstallOptions& options);
std::vector<model::Json> rbac_objects(const InstallOptions& options, const RbacRules& rbac);
model::Json cron_job(const InstallOptions& options);
// The container arguments: `reconcile -f ... --cache-dir ...` and the source flags.
std::vector<std::string> reconcile_args(const InstallOptions& options);

}  // namespace opctl::install
