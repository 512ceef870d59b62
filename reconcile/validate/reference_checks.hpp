// Warnings for references that should resolve inside the desired set.
#pragma once

#include <vector>

#include "validate/desired_index.hpp"
#include "validate/validation.hpp"

namespace opctl::validate {

// Checks a RoleBinding's or ClusterRoleBinding's roleRef and ServiceAccount
// subjects, and in every pod template (Pod, Deployment, StatefulSet,
// DaemonSet, ReplicaSet, ReplicationController, Job, CronJob, PodTemplate)
// the ServiceAccount, imagePullSecrets, and the ConfigMaps and Secrets of
// envFrom, env[].valueFrom (and their keys) and volumes (projected too).
//
// A reference is checked only when the set has at least one object of the
// referenced kind: a repository without ConfigMaps manages them elsewhere.
// Never reported: references marked `optional: true`, and objects every
// cluster has (ServiceAccount default, ConfigMap kube-root-ca.crt, the
// ClusterRoles cluster-admin, admin, edit, view and system:*).
std::vector<Finding> reference_findings(const DesiredIndex& desired);

}  // namespace opctl::validate
