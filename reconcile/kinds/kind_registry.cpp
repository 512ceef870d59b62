#include "kinds/kind_registry.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kinds/backup/backup_reconciler.hpp"
#include "kinds/hook/hook_reconciler.hpp"

// The Cluster kind lives in kinds/cluster/ (its own engineer); until its
// factory exists the registry serves Backup alone.
#if __has_include("kinds/cluster/cluster_reconciler.hpp")
#include "kinds/cluster/cluster_reconciler.hpp"
#define OPCTL_HAS_CLUSTER_KIND 1
#endif

namespace opctl::kinds {

void KindRegistry::add(std::unique_ptr<KindReconciler> reconciler) {
  auto gvk = reconciler->kind();
  if (find(gvk) != nullptr)
    throw InvalidInputError(
        {Problem{"", 0, "spec.kinds",
                 fmt::format("kind {} of {} is served twice (a hook kind cannot replace a "
                             "built-in kind or another hook kind)",
                             gvk.kind, gvk.api_version())}});
  reconcilers_.push_back(std::move(reconciler));
}

KindReconciler* KindRegistry::find(const model::GroupVersionKind& gvk) const {
  for (const auto& reconciler : reconcilers_) {
    auto kind = reconciler->kind();
    if (kind.group == gvk.group && kind.kind == gvk.kind) return reconciler.get();
  }
  return nullptr;
}

std::vector<model::Json> KindRegistry::custom_resource_definitions() const {
  std::vector<model::Json> crds;
  for (const auto& reconciler : reconcilers_)
    if (auto crd = reconciler->custom_resource_definition(); !crd.is_null()) crds.push_back(std::move(crd));
  std::sort(crds.begin(), crds.end(), [](const auto& a, const auto& b) {
    return a["metadata"].value("name", "") < b["metadata"].value("name", "");
  });
  return crds;
}

KindReconciler::SetFindings KindRegistry::check(const std::vector<model::Object>& desired) const {
  KindReconciler::SetFindings findings;
  for (const auto& object : desired) {
    const KindReconciler* reconciler = find(object.gvk());
    if (reconciler == nullptr) continue;
    for (auto& problem : reconciler->validate(object))
      findings.errors.push_back(std::move(problem));
    auto in_set = reconciler->check_in_set(object, desired);
    for (auto& problem : in_set.errors)
      findings.errors.push_back(std::move(problem));
    for (auto& problem : in_set.warnings)
      findings.warnings.push_back(std::move(problem));
  }
  return findings;
}

KindRegistry builtin_registry(const BuiltinKindOptions& builtin) {
  KindRegistry registry;
  registry.add(backup::make_backup_reconciler(builtin.default_postgres_image));
#ifdef OPCTL_HAS_CLUSTER_KIND
  {
    using namespace cluster;  // the factory may live in kinds or kinds::cluster
    registry.add(make_cluster_reconciler(builtin.default_postgres_image));
  }
#endif
  return registry;
}

KindRegistry make_registry(const std::vector<config::HookKind>& hooks, const BuiltinKindOptions& builtin) {
  KindRegistry registry = builtin_registry(builtin);
  for (const auto& hook : hooks)
    registry.add(hook::make_hook_reconciler(hook));
  return registry;
}

}  // namespace opctl::kinds
