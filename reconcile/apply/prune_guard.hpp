// Which prune candidates must stay although they left the set: a Namespace
// that still holds objects of others, a CustomResourceDefinition whose custom
// resources (of others) still exist (deleting either would delete those too),
// and objects that hold data (PersistentVolumeClaims, Clusters) unless the run
// or the object itself allows it.
#pragma once

#include <string>

#include "kube/api_client.hpp"
#include "plan/prune_set.hpp"

namespace opctl::apply {

struct PruneGuardOptions {
  std::string applyset_id;
  bool prune_namespaces = false;  // --prune-namespaces: delete non-empty Namespaces too
  bool prune_crds = false;        // --prune-crds: delete CRDs with custom resources left too
  bool prune_data = false;        // --prune-data: delete PersistentVolumeClaims and Clusters too
};

// On a live object: "true" lets a pass prune it although it holds data.
inline constexpr const char* k_prune_data_annotation = "opctl.io/prune-data";

// Why `candidate` must not be pruned, with the flag that would allow it; ""
// when it may be. Reads the cluster (a few LISTs) only for Namespaces and CRDs.
std::string prune_refusal(kube::ApiClient& client, const plan::PruneCandidate& candidate,
                          const PruneGuardOptions& options);

// Up to three "Kind namespace/name" of custom resources served by `crd` (a
// live CustomResourceDefinition) that are not part of `applyset_id`.
std::vector<std::string> foreign_custom_resources(kube::ApiClient& client, const model::Json& crd,
                                                  const std::string& applyset_id);

}  // namespace opctl::apply
