#include "custom_kinds.hpp"

#include "kind_defaults.hpp"
#include "kinds/kind_runner.hpp"

namespace opctl::cli {

CustomKinds::CustomKinds(const CommonOptions& options, const std::vector<model::Object>& objects,
                         const std::function<void(const std::string&)>& warn)
    : registry_(run_registry(options)),
      clock_(std::make_unique<SystemClock>()),
      random_(kinds::system_random()) {
  auto findings = registry_.check(objects);
  if (!findings.errors.empty()) throw InvalidInputError(std::move(findings.errors));
  for (const auto& warning : findings.warnings)
    warn(warning.to_string());
  for (const auto& object : objects)
    if (registry_.find(object.gvk()) != nullptr) resources_.push_back(object);
}

void CustomKinds::plug_into(apply::PassOptions& pass, kube::ApiClient& client,
                            std::function<void(const std::string&)> on_waiting) {
  for (const auto& reconciler : registry_.all()) {
    auto gvk = reconciler->kind();
    pass.skip_health.emplace_back(gvk.group, gvk.kind);
  }
  kinds::RunnerOptions runner;
  runner.applyset_id = pass.applyset.id();
  runner.wait = pass.wait;
  runner.deadline = std::chrono::steady_clock::now() + pass.timeout;
  runner.delete_propagation = pass.delete_propagation;
  runner.on_outcome = pass.events.on_outcome;
  runner.on_waiting = std::move(on_waiting);
  runner.stop_requested = pass.stop_requested;
  pass.run_custom_kinds = [this, &client, runner](apply::PassReport& report) {
    try {
      kinds::KindRunner(client, registry_, {*clock_, *random_}, runner).run(resources_, report);
    } catch (const Error& error) {
      if (error.category() == ErrorCategory::lock_held) throw;  // the Lease is lost: stop writing at once
      // The pass's first failure stays the one it reports (the runner may follow a failed wave).
      std::string message = std::string("custom kinds: ") + error.what();
      if (report.result == apply::PassResult::succeeded) {
        report.result = apply::PassResult::failed;
        report.message = message;
      } else {
        report.message += "; " + message;
      }
    }
  };
}

}  // namespace opctl::cli
