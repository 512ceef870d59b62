#include "instance/store_backup_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "kinds/backup/store_catalog.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/kind_time.hpp"
#include "model/error.hpp"
#include "process/child_process.hpp"

namespace opctl::instance {
namespace {

using model::Json;
namespace names = kinds::cluster;

struct Answer {
  std::string instance;
  std::string phase;
  std::string message;
};

// What an instance of the Cluster last said about this request, if any did.
std::optional<Answer> find_answer(kube::ApiClient& client, const StoreBackupJob& job) {
  auto pods = kube::core_v1_resource("Pod", "pods", true);
  kube::ListOptions options;
  options.label_selector = fmt::format("{}={}", names::k_cluster_label, job.cluster);
  std::optional<Answer> found;
  for (const auto& pod : client.list(pods, job.namespace_name, options)) {
    Json::json_pointer at(std::string("/metadata/annotations/") + "opctl.io~1backup-requests");
    if (!pod.contains(at) || !pod[at].is_string()) continue;
    Json requests = Json::parse(pod[at].get<std::string>(), nullptr, false);
    if (!requests.is_object() || !requests.contains(job.pod_uid)) continue;
    const Json& entry = requests[job.pod_uid];
    Answer answer{pod["metadata"].value("name", ""), entry.value("phase", ""), entry.value("message", "")};
    // A finished answer wins over another instance's older "waiting" (a failover during the wait).
    if (!found || answer.phase == "completed" || answer.phase == "failed") found = answer;
  }
  return found;
}

std::string run_tool(const std::vector<std::string>& argv, std::chrono::seconds timeout) {
  process::ProcessOptions limits;
  limits.timeout = timeout;
  limits.max_output = std::size_t{16} << 20;
  process::ProcessResult result = process::run_process(argv, limits);
  if (result.exit_code != 0) {
    std::string said = result.err.empty() ? result.out : result.err;
    while (!said.empty() && (said.back() == '\n' || said.back() == ' '))
      said.pop_back();
    throw ClusterError(fmt::format("{} failed ({}): {}", argv.front(),
                                   result.timed_out ? "timed out" : fmt::format("exit {}", result.exit_code),
                                   said.substr(said.size() > 500 ? said.size() - 500 : 0)));
  }
  return result.out;
}

}  // namespace

Json run_store_backup_job(kube::ApiClient& client, const StoreBackupJob& job, std::ostream& log) {
  auto started = std::chrono::steady_clock::now();
  std::string last_said;
  while (true) {
    std::optional<Answer> answer = find_answer(client, job);
    if (answer) {
      std::string said = fmt::format("{}: {}{}", answer->instance, answer->phase,
                                     answer->message.empty() ? "" : " (" + answer->message + ")");
      if (said != last_said) log << "opctl instance backup: " << said << "\n" << std::flush;
      last_said = said;
      if (answer->phase == "completed") break;
      if (answer->phase == "failed")
        throw ClusterError(fmt::format("the backup failed on {}: {}", answer->instance, answer->message));
    } else if (std::chrono::steady_clock::now() - started > job.answer_timeout) {
      throw ClusterError(
          fmt::format("no instance of Cluster {} answered within {}s: it has no primary, or its "
                      "spec.walArchive does not name "
                      "this Backup (a base backup to an object store is taken by the primary, which archives "
                      "its WAL there)",
                      job.cluster, job.answer_timeout.count()));
    }
    std::this_thread::sleep_for(job.poll_period);
  }

  std::vector<std::string> list = job.list_command;
  auto backups = kinds::backup::parse_store_backups(run_tool(list, std::chrono::seconds(300)));
  auto taken = std::find_if(backups.begin(), backups.end(),
                            [&](const auto& backup) { return backup.name == job.pod_name; });
  if (taken == backups.end() || taken->status != "DONE")
    throw ClusterError(
        fmt::format("the primary reported the backup done, but the store lists no completed "
                    "backup named {}",
                    job.pod_name));
  kinds::backup::StoreBackup mine = *taken;
  auto doomed =
      kinds::backup::backups_to_delete(backups, job.keep, job.max_age, std::chrono::system_clock::now());
  for (const auto& id : doomed) {
    std::vector<std::string> argv = job.delete_command;
    argv.insert(argv.begin() + 1, {"--backup-id", id});
    try {
      run_tool(argv, std::chrono::seconds(600));
      log << "opctl instance backup: retention deleted backup " << id << "\n";
    } catch (const ClusterError& error) {
      // The backup itself succeeded: the retention is tried again after the next one.
      log << "opctl instance backup: retention could not delete backup " << id << ": " << error.what()
          << "\n";
    }
  }
  if (!doomed.empty())
    backups = kinds::backup::parse_store_backups(run_tool(list, std::chrono::seconds(300)));
  return kinds::backup::store_termination_message(mine, backups);
}

std::string fetch_store_backup(const StoreFetch& fetch, std::ostream& log) {
  auto backups = kinds::backup::parse_store_backups(run_tool(fetch.list_command, std::chrono::seconds(300)));
  std::optional<kinds::TimePoint> target_time;
  if (!fetch.target_time.empty()) {
    target_time = kinds::parse_time(fetch.target_time);
    if (!target_time) throw ClusterError("the target time " + fetch.target_time + " is not an RFC 3339 time");
  }
  auto picked = kinds::backup::pick_backup(backups, target_time, fetch.target_lsn);
  if (!picked) {
    std::string target = fetch.target_time + fetch.target_lsn;
    throw ClusterError(fmt::format("Backup {} has no completed base backup in the object store{}",
                                   fetch.backup_name, target.empty() ? "" : " that ended before " + target));
  }
  log << fmt::format("opctl instance fetch-backup: fetching base backup {} ({}, ended {}) into {}\n",
                     picked->id, picked->name, picked->end_time ? kinds::format_time(*picked->end_time) : "?",
                     fetch.pgdata)
      << std::flush;
  std::vector<std::string> argv = fetch.restore_command;
  argv.push_back(picked->id);
  argv.push_back(fetch.pgdata);
  run_tool(argv, std::chrono::hours(6));
  return picked->id;
}

}  // namespace opctl::instance
