// opctl backup NAME --now: start an on-demand backup Job for a Backup, with
// the same Job template its CronJob uses, and print the Job's name.
#include <fmt/format.h>

#include <iostream>

#include "cluster_connection.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "kinds/backup/backup_job.hpp"
#include "kinds/backup/backup_reconciler.hpp"
#include "kinds/backup/backup_spec.hpp"
#include "kube/api_error.hpp"
#include "resource_lookup.hpp"

namespace opctl::cli {
namespace {

using model::Json;

struct BackupOptions {
  CommonOptions common;
  std::string name;
  bool now = false;
};

std::string describe_issues(const std::vector<kinds::schema::Issue>& issues) {
  std::vector<std::string> lines;
  for (const auto& issue : issues)
    lines.push_back(issue.field + ": " + issue.message);
  return fmt::format("{}", fmt::join(lines, "; "));
}

int run_backup(BackupOptions& options) {
  namespace backup = kinds::backup;
  if (!options.now)
    throw InvalidInputError(
        {Problem{"", 0, "--now", "say --now to start a backup (the only action so far)"}});
  ClusterConnection connection = connect(options.common);
  auto& client = *connection.client;
  std::string namespace_name = connection.default_namespace(options.common);
  auto backups = resource_or_fail(client, {backup::k_group, backup::k_version, backup::k_kind});
  Json parent = get_or_fail(client, backups, namespace_name, options.name);
  if (auto issues = backup::check_spec(parent.value("spec", Json())); !issues.empty())
    throw ClusterError(fmt::format("Backup {}/{} has an invalid spec: {}", namespace_name, options.name,
                                   describe_issues(issues)));
  backup::JobInput input{options.name,
                         namespace_name,
                         parent["metadata"].value("uid", ""),
                         backup::read_spec(parent["spec"]),
                         kinds::postgres_image_or_default(options.common.default_postgres_image),
                         backup::RunAs{}};
  auto clusters = resource_or_fail(client, backup::k_cluster_kind);
  Json cluster = get_or_fail(client, clusters, namespace_name, input.spec.cluster);
  input.image = backup::cluster_image(&cluster, input.image);
  input.run_as = backup::cluster_run_as(&cluster);
  if (backup::cluster_hibernated(&cluster))
    throw ClusterError(
        fmt::format("Cluster {}/{} hibernates (opctl.io/hibernation): it has no instance to back up; "
                    "set the annotation to \"off\" first",
                    namespace_name, input.spec.cluster));

  auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  std::string job_name = fmt::format("{}-now-{}", options.name, seconds.count());
  Json job = backup::backup_job(input, job_name, "manual");
  // Owned by the Backup (deleted with it, and by its retention) but not
  // controlled: the Backup's reconciler does not want it as a child.
  job["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", parent.value("apiVersion", "")},
                                                     {"kind", backup::k_kind},
                                                     {"name", options.name},
                                                     {"uid", input.backup_uid},
                                                     {"blockOwnerDeletion", true}}});
  auto jobs = resource_or_fail(client, {"batch", "v1", "Job"});
  auto created = client.execute(client.create_request(jobs, model::Object(job), false));
  if (!created.ok()) throw kube::ApiError(created.status);
  std::cout << job_name << "\n";
  return k_exit_ok;
}

}  // namespace

void register_backup(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<BackupOptions>();
  auto* command = app.add_subcommand("backup", "Start an on-demand backup of a Backup's Cluster");
  command->footer(
      "Creates a Job from the Backup's Job template (the one its CronJob uses) and prints the Job's name. "
      "Its retention applies to this Job like any other.\n\n"
      "Exit codes: 0 the Job was created, 2 invalid arguments, 3 the Backup or its Cluster was not found or "
      "the API server refused the Job.\n\n"
      "Examples:\n"
      "  opctl backup nightly --now -n shop\n"
      "  kubectl wait --for=condition=Complete job/$(opctl backup nightly --now -n shop) -n shop\n");
  command->add_option("NAME", options->name, "The Backup")->required();
  command->add_flag("--now", options->now, "Start a backup now")->required();
  add_cluster_flags(*command, options->common);
  add_kind_flags(*command, options->common);
  add_output_flags(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_backup(*options); }; });
}

}  // namespace opctl::cli
