// The Backup kind (opctl.io/v1alpha1): a scheduled Backup owns a CronJob kept
// in step with the spec; an unscheduled one runs one Job. Each pass applies
// the retention to the backup Jobs (see backup_retention.hpp) and reports
// lastScheduleTime, lastSuccessfulTime, nextScheduleTime and conditions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds::backup {

inline const model::GroupVersionKind k_cluster_kind{"opctl.io", "v1alpha1", "Cluster"};

class BackupReconciler : public KindReconciler {
 public:
  // `default_image`: the site default of a Cluster without spec.imageName (empty: the built-in name).
  explicit BackupReconciler(std::string default_image = "") : default_image_(std::move(default_image)) {}
  model::GroupVersionKind kind() const override;
  std::vector<model::GroupVersionKind> child_kinds() const override;
  std::vector<RelatedRef> related(const model::Json& parent) const override;
  ReconcileResult reconcile(const Observed& observed, Context& context) override;
  std::vector<Problem> validate(const model::Object& object) const override;
  SetFindings check_in_set(const model::Object& object,
                           const std::vector<model::Object>& desired) const override;
  model::Json custom_resource_definition() const override;

 private:
  std::string default_image_;
};

std::unique_ptr<KindReconciler> make_backup_reconciler(const std::string& default_image = "");

// Advice on a schedule and its retention (a schedule that fires more often
// than the retention can hold, no retention at all); empty when none.
std::vector<std::string> retention_advice(const std::string& schedule, const std::string& time_zone,
                                          std::optional<int> keep,
                                          std::optional<std::chrono::seconds> max_age);

// A warning for a time zone whose clock shifts by other than a whole hour on
// the hour (see cron_schedule.hpp), where the CronJob controller can misfire;
// nullopt for other zones and for "@every".
std::optional<std::string> time_zone_advice(const std::string& schedule, const std::string& time_zone);

}  // namespace opctl::kinds::backup
