// Hook kinds: custom kinds whose logic is an external hook speaking
// Metacontroller's composite-controller contract, with no controller running
// in the cluster — opctl calls the hook once per resource and pass.
//
// Request:  {"controller": {apiVersion, kind}, "parent": <live object>,
//            "children": {"<Kind>.<apiVersion>": {"<name>": <object>}},
//            "related": {}, "finalizing": <bool>}
// Response: {"status": {...}, "children": [<object>...],
//            "resyncAfterSeconds": <n>, "finalized": <bool>}
//
// `children` must be present (an empty list deletes every child); children
// may only be of the kinds listed for the hook in opctl.yaml. Any failure —
// the hook cannot run, times out, exits non-zero, answers malformed JSON or a
// child of an unlisted kind — is reported on the resource's Degraded
// condition, and nothing is applied or deleted.
#pragma once

#include <memory>

#include "config/run_config.hpp"
#include "kinds/hook/hook_transport.hpp"
#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds::hook {

// The finalizer a hook kind with `finalize: true` puts on its resources.
inline constexpr const char* k_hook_finalizer = "opctl.io/hook-finalizer";

class HookReconciler : public KindReconciler {
 public:
  HookReconciler(config::HookKind config, std::unique_ptr<HookTransport> transport);

  model::GroupVersionKind kind() const override;
  std::vector<model::GroupVersionKind> child_kinds() const override;
  ReconcileResult reconcile(const Observed& observed, Context& context) override;
  std::vector<Problem> validate(const model::Object& object) const override;
  model::Json custom_resource_definition() const override;

  // The request sent to the hook (exposed for tests).
  model::Json request(const Observed& observed) const;

 private:
  ReconcileResult from_response(const Observed& observed, const std::string& text) const;
  ReconcileResult failed(const Observed& observed, const std::string& message) const;
  std::vector<std::string> finalizers(const Observed& observed, bool finalized) const;

  config::HookKind config_;
  std::unique_ptr<HookTransport> transport_;
};

// A hook kind calling its command or URL.
std::unique_ptr<KindReconciler> make_hook_reconciler(const config::HookKind& config);

}  // namespace opctl::kinds::hook
