// Which prune candidates must stay although they left the set: a Namespace
// that still holds objects of others, a CustomResourceDefinition whose custom
// resources (of others) still exist. Deleting either would delete those too.
#pragma once

#include <string>

#include "kube/api_client.hpp"
#include "plan/prune_set.hpp"

namespace opctl::apply {

struct PruneGuardOptions {
  std::string applyset_id;
  bool prune_namespaces = false;  // --prune-namespaces: delete non-empty Namespaces too
  bool prune_crds = false;        // --prune-crds: delete CRDs with custom resources left too
};

// Why `candidate` must not be pruned, with the flag that would allow it; ""
// when it may be. Reads the cluster (a few LISTs) only for Namespaces and CRDs.
std::string prune_refusal(kube::ApiClient& client, const plan::PruneCandidate& candidate,
                          const PruneGuardOptions& options);

// Up to three "Kind namespace/name" of custom resources served by `crd` (a
// live CustomResourceDefinition) that are not part of `applyset_id`.
std::vector<std::string> foreign_custom_resources(kube::ApiClient& client, const model::Json& crd,
                                                  const std::string& applyset_id);

}  // namespace opctl::apply
