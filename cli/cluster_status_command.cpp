// opctl cluster status CLUSTER: what `kubectl cnpg status` shows, from the
// objects alone (kinds/cluster/cluster_overview.hpp): it needs no route to
// the Pods and no exec, so it works wherever `opctl status` does.
#include <fmt/format.h>

#include <iostream>

#include "cluster_commands.hpp"
#include "cluster_connection.hpp"
#include "cluster_objects.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "kinds/cluster/cluster_overview.hpp"
#include "structured_output.hpp"
#include "text_table.hpp"

namespace opctl::cli {
namespace {

using model::Json;

struct ClusterStatusOptions {
  CommonOptions common;
  std::string cluster;
  std::string output = "text";
};

std::string status_text_of(const Json& object, const char* key, const std::string& fallback = "-") {
  if (!object.is_object() || !object.contains(key) || object[key].is_null()) return fallback;
  if (object[key].is_string()) return object[key].get<std::string>();
  if (object[key].is_boolean()) return object[key].get<bool>() ? "yes" : "no";
  return object[key].dump();
}

// spec.managed's status in one line: "2 reconciled, 1 cannotReconcile (alice: <why>)".
std::string status_managed_text(const Json& managed) {
  std::vector<std::string> parts;
  if (managed.contains("byStatus") && managed["byStatus"].is_object())
    for (const auto& [state, names] : managed["byStatus"].items())
      parts.push_back(fmt::format("{} {}", names.size(), state));
  std::vector<std::string> reasons;
  if (managed.contains("cannotReconcile") && managed["cannotReconcile"].is_object())
    for (const auto& [name, why] : managed["cannotReconcile"].items())
      reasons.push_back(name + ": " + (why.is_string() ? why.get<std::string>() : why.dump()));
  std::string text = parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ", "));
  return reasons.empty() ? text : fmt::format("{} ({})", text, fmt::join(reasons, "; "));
}

std::string status_bytes_text(const Json& value) {
  if (!value.is_number_unsigned() && !value.is_number_integer()) return "-";
  double bytes = value.get<double>();
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", value.get<std::uint64_t>())
                   : fmt::format("{:.1f} {}", bytes, units[unit]);
}

std::string status_lease_text(const Json& lease) {
  if (!lease.is_object()) return "no primary Lease (the first pass creates it)";
  std::string holder = status_text_of(lease, "holder", "");
  if (holder.empty()) return "nobody holds the primary Lease";
  std::string text = fmt::format("{} holds the primary Lease", holder);
  if (lease.contains("renewedSecondsAgo"))
    text += fmt::format(" (renewed {}s ago{})", lease["renewedSecondsAgo"].get<long>(),
                        lease.value("expired", false) ? ", EXPIRED" : "");
  if (lease.contains("timeline")) text += ", timeline " + lease["timeline"].get<std::string>();
  return text;
}

std::string status_instances_table(const Json& instances) {
  TextTable table(
      {"NAME", "ROLE", "READY", "POD", "NODE", "TIMELINE", "LSN", "LAG", "STREAMING", "REPORTED"});
  std::string errors;
  for (const auto& instance : instances) {
    std::string lsn = status_text_of(instance, "currentLSN", "");
    if (lsn.empty()) lsn = status_text_of(instance, "replayLSN");
    std::string reported = "-";
    if (instance.contains("reportedSecondsAgo"))
      reported = fmt::format("{}s ago{}", instance["reportedSecondsAgo"].get<long>(),
                             instance.value("reportStale", false) ? " (stale)" : "");
    std::string role = status_text_of(instance, "role");
    if (instance.value("fenced", false) && role != "fenced") role += " (fenced)";
    table.add({status_text_of(instance, "name"), role, status_text_of(instance, "ready"),
               status_text_of(instance, "pod"), status_text_of(instance, "node"),
               status_text_of(instance, "timeline"), lsn,
               instance.contains("lagBytes") ? status_bytes_text(instance["lagBytes"]) : "-",
               status_text_of(instance, "streaming"), reported});
    if (instance.contains("error"))
      errors +=
          fmt::format("  {}: {}\n", status_text_of(instance, "name"), status_text_of(instance, "error"));
    if (instance.contains("pendingRestart"))
      errors += fmt::format("  {}: waits for a restart for {}\n", status_text_of(instance, "name"),
                            status_text_of(instance, "pendingRestart"));
  }
  return table.render("  ") + errors;
}

std::string status_replication_text(const Json& replication) {
  if (!replication.is_object()) return "  (the primary has not reported it yet)\n";
  std::string out;
  TextTable standbys({"STANDBY", "STATE", "SYNC"});
  for (const auto& standby : replication.value("standbys", Json::array()))
    standbys.add({status_text_of(standby, "name"), status_text_of(standby, "state"),
                  status_text_of(standby, "syncState")});
  out += standbys.render("  ");
  TextTable slots({"SLOT", "ACTIVE", "WAL"});
  for (const auto& slot : replication.value("slots", Json::array()))
    slots.add(
        {status_text_of(slot, "name"), status_text_of(slot, "active"), status_text_of(slot, "walStatus")});
  out += slots.render("  ");
  const Json& archiver = replication.value("archiver", Json::object());
  std::string last = status_text_of(archiver, "lastArchivedWal", "");
  out += fmt::format(
      "  archiving: {} WAL files archived{}; {} failed{}\n", status_text_of(archiver, "archived", "0"),
      last.empty() ? "" : fmt::format(", last {} at {}", last, status_text_of(archiver, "lastArchivedTime")),
      status_text_of(archiver, "failed", "0"),
      status_text_of(archiver, "lastFailedWal", "").empty()
          ? ""
          : fmt::format(", last {} at {}", status_text_of(archiver, "lastFailedWal"),
                        status_text_of(archiver, "lastFailedTime")));
  return out;
}

std::string status_backups_table(const Json& backups) {
  if (backups.empty()) return "  (no Backup names this Cluster)\n";
  TextTable table({"NAME", "METHOD", "SCHEDULE", "LAST SUCCESS", "NEXT", "ARTIFACTS", "READY"});
  for (const auto& backup : backups)
    table.add({status_text_of(backup, "name"), status_text_of(backup, "method"),
               backup.value("suspended", false) ? status_text_of(backup, "schedule") + " (suspended)"
                                                : status_text_of(backup, "schedule"),
               status_text_of(backup, "lastSuccessfulTime"), status_text_of(backup, "nextScheduleTime"),
               status_text_of(backup, "artifactCount"), status_text_of(backup, "ready")});
  return table.render("  ");
}

std::string status_certificates_table(const Json& certificates) {
  if (certificates.empty()) return "  (no certificate in the Cluster's Secrets)\n";
  TextTable table({"SECRET", "KEY", "COMMON NAME", "CA", "SERIAL", "NOT AFTER", "EXPIRES IN"});
  std::string problems;
  for (const auto& certificate : certificates) {
    std::string left = "-";
    if (certificate.contains("expiresInDays"))
      left = certificate.value("expired", false)
                 ? "EXPIRED"
                 : fmt::format("{}d", certificate["expiresInDays"].get<long>());
    table.add({status_text_of(certificate, "secret"), status_text_of(certificate, "key"),
               status_text_of(certificate, "commonName"), status_text_of(certificate, "isCA"),
               status_text_of(certificate, "serial"), status_text_of(certificate, "notAfter"), left});
    if (certificate.contains("problem"))
      problems += fmt::format("  {}/{}: {}\n", status_text_of(certificate, "secret"),
                              status_text_of(certificate, "key"), status_text_of(certificate, "problem"));
  }
  return table.render("  ") + problems;
}

}  // namespace

std::string render_cluster_status(const Json& overview) {
  const Json& cluster = overview["cluster"];
  std::string out =
      fmt::format("Cluster {}/{}: {} ({} of {} instances Ready)\n", status_text_of(cluster, "namespace"),
                  status_text_of(cluster, "name"), status_text_of(cluster, "phase", "no status yet"),
                  status_text_of(cluster, "readyInstances", "0"), status_text_of(cluster, "instances"));
  auto line = [&](const char* label, const std::string& value) {
    out += fmt::format("  {:<15}{}\n", std::string(label) + ":", value);
  };
  if (cluster.contains("phaseReason")) line("Message", status_text_of(cluster, "phaseReason"));
  line("Primary",
       status_text_of(cluster, "currentPrimary") + "; " + status_lease_text(overview["primaryLease"]));
  if (overview["primaryLease"].is_object() && overview["primaryLease"].contains("synchronousStandbys"))
    line("Synchronous", status_text_of(overview["primaryLease"], "synchronousStandbys"));
  line("Image", status_text_of(cluster, "image", "(the site default)"));
  if (cluster.contains("configuration")) {
    const Json& configuration = cluster["configuration"];
    line("Configuration",
         status_text_of(configuration, "phase") +
             (configuration.contains("appliedBy") ? " (by " + status_text_of(configuration, "appliedBy") + ")"
                                                  : ""));
  }
  for (const auto& [key, label] : {std::pair<const char*, const char*>{"managedRoles", "Managed roles"},
                                   std::pair<const char*, const char*>{"managedDatabases", "Databases"}})
    if (cluster.contains(key)) line(label, status_managed_text(cluster[key]));
  line("Hibernation", status_text_of(cluster, "hibernation"));
  std::vector<std::string> fenced = cluster.value("fencedInstances", std::vector<std::string>{});
  line("Fenced", fenced.empty() ? "none" : fmt::format("{}", fmt::join(fenced, ", ")));
  out += "\nInstances\n" + status_instances_table(overview["instances"]);
  out += "\nReplication (as the primary reports it)\n" + status_replication_text(overview["replication"]);
  out += "\nBackups\n" + status_backups_table(overview["backups"]);
  out += "\nCertificates\n" + status_certificates_table(overview["certificates"]);
  out += "\nConditions\n";
  TextTable conditions({"TYPE", "STATUS", "REASON", "MESSAGE"});
  for (const auto& condition : cluster["conditions"])
    conditions.add({status_text_of(condition, "type"), status_text_of(condition, "status"),
                    status_text_of(condition, "reason", ""), status_text_of(condition, "message", "")});
  out += conditions.render("  ");
  return out;
}

namespace {

int run_cluster_status(ClusterStatusOptions& options) {
  ClusterConnection connection = connect(options.common);
  ClusterObjects objects =
      read_cluster_objects(*connection.client, connection.default_namespace(options.common), options.cluster);
  kinds::cluster::OverviewInputs inputs{&objects.cluster, std::move(objects.children),
                                        std::move(objects.backups), std::chrono::system_clock::now()};
  Json overview = kinds::cluster::cluster_overview(inputs);
  std::cout << (is_structured(options.output) ? render_structured(overview, options.output)
                                              : render_cluster_status(overview));
  return k_exit_ok;
}

}  // namespace

void register_cluster_status(CLI::App& parent, CommandAction& action) {
  auto options = std::make_shared<ClusterStatusOptions>();
  auto* command =
      parent.add_subcommand("status", "Show a Cluster's instances, replication, backups and certificates");
  command->footer(
      "Reads the Cluster, its Pods, volumes, Secrets, primary Lease and the Backups of its namespace; what "
      "PostgreSQL does (role, WAL positions, lag, timeline, slots, archiving) is what each instance manager "
      "last reported on its Pod, with the report's age. Secret values are never shown: of a Secret only the "
      "certificates it holds (subject, expiry).\n\n"
      "Exit codes: 0 shown, 2 invalid arguments, 3 the Cluster was not found or the API server failed.\n\n"
      "Examples:\n"
      "  opctl cluster status db -n shop\n"
      "  opctl cluster status db -n shop -o json | jq '.instances[] | {name, role, lagBytes}'\n");
  command->add_option("CLUSTER", options->cluster, "The Cluster")->required();
  command->add_option("-o,--output", options->output, "text, json or yaml")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  add_cluster_flags(*command, options->common);
  add_output_flags(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_cluster_status(*options); }; });
}

}  // namespace opctl::cli
