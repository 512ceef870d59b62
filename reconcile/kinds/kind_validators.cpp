#include "kinds/kind_validators.hpp"

namespace opctl::kinds {
namespace {

class ReconcilerValidator : public validate::KindValidator {
 public:
  explicit ReconcilerValidator(const KindReconciler& reconciler) : reconciler_(reconciler) {}

  bool handles(const model::GroupVersionKind& gvk) const override {
    auto kind = reconciler_.kind();
    return kind.group == gvk.group && kind.kind == gvk.kind;
  }

  std::vector<validate::Finding> validate(const model::Object& object,
                                          const validate::DesiredIndex& desired) const override {
    std::vector<validate::Finding> findings;
    std::string key = object.key().to_string();
    auto add = [&](std::vector<Problem> problems, validate::Finding::Severity severity) {
      for (auto& problem : problems)
        findings.push_back({severity, std::move(problem), key});
    };
    add(reconciler_.validate(object), validate::Finding::Severity::error);
    auto in_set = reconciler_.check_in_set(object, desired.objects());
    add(std::move(in_set.errors), validate::Finding::Severity::error);
    add(std::move(in_set.warnings), validate::Finding::Severity::warning);
    return findings;
  }

 private:
  const KindReconciler& reconciler_;
};

}  // namespace

std::vector<std::unique_ptr<validate::KindValidator>> kind_validators(const KindRegistry& registry) {
  std::vector<std::unique_ptr<validate::KindValidator>> validators;
  for (const auto& reconciler : registry.all())
    validators.push_back(std::make_unique<ReconcilerValidator>(*reconciler));
  return validators;
}

}  // namespace opctl::kinds
