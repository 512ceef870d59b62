// Wires the custom kinds into `opctl reconcile`: the registry (built-in
// kinds and opctl.yaml's hook kinds), the spec checks before anything is
// applied, and the kinds runner plugged into the pass.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apply/apply_pass.hpp"
#include "common_options.hpp"
#include "kinds/kind_registry.hpp"
#include "kube/api_client.hpp"
#include "model/object.hpp"

namespace opctl::cli {

class CustomKinds {
 public:
  // Builds the registry and checks the specs of every custom resource in
  // `objects` (namespaces defaulted): throws InvalidInputError listing the
  // errors; warnings go to `warn`, one line each.
  CustomKinds(const CommonOptions& options, const std::vector<model::Object>& objects,
              const std::function<void(const std::string&)>& warn);

  // Sets pass.run_custom_kinds (and keeps the pass's health waits off the
  // custom kinds: their readiness is the runner's, which runs after the waves,
  // also when an object of the set failed).
  void plug_into(apply::PassOptions& pass, kube::ApiClient& client,
                 std::function<void(const std::string&)> on_waiting);

 private:
  kinds::KindRegistry registry_;
  std::vector<model::Object> resources_;  // the custom resources of the desired set
  std::unique_ptr<Clock> clock_;
  std::unique_ptr<kinds::RandomSource> random_;
};

}  // namespace opctl::cli
