// The custom kinds opctl serves: the built-in ones (Backup, Cluster) and the
// hook kinds opctl.yaml declares. One place answers which reconciler handles
// a kind, which CRDs `opctl crds` prints, and what is wrong with the specs of
// a desired set (for `opctl validate` and before a reconcile pass applies).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds {

class KindRegistry {
 public:
  // Throws InvalidInputError when the kind is already registered.
  void add(std::unique_ptr<KindReconciler> reconciler);
  // The reconciler of a kind (group and kind; any version); nullptr when none.
  KindReconciler* find(const model::GroupVersionKind& gvk) const;
  const std::vector<std::unique_ptr<KindReconciler>>& all() const { return reconcilers_; }

  // The CRDs of the built-in kinds, by name.
  std::vector<model::Json> custom_resource_definitions() const;

  // Every problem with the custom resources in `desired`: errors make the set
  // invalid; warnings are advice.
  KindReconciler::SetFindings check(const std::vector<model::Object>& desired) const;

 private:
  std::vector<std::unique_ptr<KindReconciler>> reconcilers_;
};

// What a site decides for the built-in kinds: opctl.yaml's spec.clusterDefaults
// and its flags, handed to the Cluster and Backup reconcilers.
struct BuiltinKindOptions {
  // The image of a Cluster without spec.imageName (and of its Backups'
  // Jobs); empty: none set, k_default_postgres_image applies, with a warning.
  std::string default_postgres_image;
};

// The built-in kinds (Backup; Cluster when built) and the config's hook kinds.
// Throws InvalidInputError when a hook kind names a built-in kind.
KindRegistry make_registry(const std::vector<config::HookKind>& hooks,
                           const BuiltinKindOptions& builtin = {});

// Only the built-in kinds (opctl crds, opctl backup).
KindRegistry builtin_registry(const BuiltinKindOptions& builtin = {});

}  // namespace opctl::kinds
