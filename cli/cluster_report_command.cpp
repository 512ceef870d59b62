// opctl cluster report CLUSTER: a redacted support bundle (a .tar.gz) of
// everything one would ask for when a Cluster misbehaves, as `kubectl cnpg
// report cluster` writes one: the status, the objects, the Events and, with
// --logs, the instances' logs. What is redacted is support_bundle.hpp's.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <iostream>

#include "build_info.hpp"
#include "cluster_commands.hpp"
#include "cluster_connection.hpp"
#include "cluster_objects.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "kinds/cluster/support_bundle.hpp"
#include "kube/api_error.hpp"
#include "structured_output.hpp"
#include "tar_archive.hpp"

namespace opctl::cli {
namespace {

using model::Json;

struct ClusterReportOptions {
  CommonOptions common;
  std::string cluster;
  std::string file;  // -f; default report_cluster_NAME_STAMP.tar.gz
  bool logs = false;
  int tail = 10'000;
};

std::vector<Json> report_namespace_events(kube::ApiClient& client, const std::string& namespace_name) {
  auto events = client.mapper().find({"", "v1", "Event"});
  if (!events) return {};
  return client.list(*events, namespace_name);
}

// The postgres container's log of each instance Pod, and the previous container's when it restarted.
std::map<std::string, std::string> report_instance_logs(ClusterConnection& connection,
                                                        const ClusterObjects& objects, int tail) {
  std::vector<kube::HttpRequest> requests;
  std::vector<std::string> names;
  for (const auto& child : objects.children) {
    if (child.value("kind", "") != "Pod") continue;
    std::string pod = child["metadata"].value("name", "");
    std::string base = fmt::format("/api/v1/namespaces/{}/pods/{}/log?container=postgres&tailLines={}",
                                   objects.namespace_name, pod, tail);
    requests.push_back({"GET", base, "", "", "*/*", true});
    names.push_back(pod + ".log");
    long restarts = 0;
    for (const auto& status : child.value("/status/containerStatuses"_json_pointer, Json::array()))
      restarts += status.value("restartCount", 0L);
    if (restarts > 0) {
      requests.push_back({"GET", base + "&previous=true", "", "", "*/*", true});
      names.push_back(pod + ".previous.log");
    }
  }
  std::map<std::string, std::string> logs;
  auto responses = connection.transport->send_all(requests);
  for (std::size_t i = 0; i < responses.size(); ++i) {
    const auto& response = responses[i];
    logs[names[i]] = response.status == 200
                         ? response.body
                         : fmt::format("(no log: HTTP {} {})\n", response.status,
                                       response.status == 0 ? response.transport_error : response.body);
  }
  return logs;
}

int run_cluster_report(ClusterReportOptions& options) {
  ClusterConnection connection = connect(options.common);
  std::string namespace_name = connection.default_namespace(options.common);
  ClusterObjects objects = read_cluster_objects(*connection.client, namespace_name, options.cluster);
  auto now = std::chrono::system_clock::now();

  kinds::cluster::BundleInputs inputs;
  inputs.cluster = &objects.cluster;
  inputs.events = report_namespace_events(*connection.client, namespace_name);
  if (options.logs) inputs.logs = report_instance_logs(connection, objects, options.tail);
  inputs.children = std::move(objects.children);
  inputs.backups = std::move(objects.backups);
  inputs.opctl_version = k_version;
  inputs.now = now;
  auto files = kinds::cluster::support_bundle(inputs);

  std::string stamp = fmt::format("{:%Y%m%dT%H%M%SZ}", std::chrono::floor<std::chrono::seconds>(now));
  std::string directory = fmt::format("report_cluster_{}_{}", options.cluster, stamp);
  std::string file = options.file.empty() ? directory + ".tar.gz" : options.file;
  TarGzWriter archive(file);
  for (const auto& entry : files) {
    std::string content = entry.document.is_null()        ? entry.text
                          : entry.path.ends_with(".json") ? entry.document.dump(2) + "\n"
                                                          : render_structured(entry.document, "yaml");
    archive.add(directory + "/" + entry.path, content, now);
    if (entry.path == "status.json")
      archive.add(directory + "/status.txt", render_cluster_status(entry.document), now);
  }
  archive.finish();
  if (!options.common.quiet)
    std::cout << fmt::format("wrote {} ({} files{}); Secret values are redacted\n", file, files.size() + 1,
                             options.logs ? ", logs included" : "; add --logs for the instances' logs");
  return k_exit_ok;
}

}  // namespace

void register_cluster_report(CLI::App& parent, CommandAction& action) {
  auto options = std::make_shared<ClusterReportOptions>();
  auto* command = parent.add_subcommand("report", "Write a redacted support bundle of a Cluster (.tar.gz)");
  command->footer(
      "The bundle holds what opctl cluster status shows (status.txt, status.json), the Cluster, its Pods, "
      "volumes, Services, Secrets, Jobs, budgets and primary Lease, the Backups that name it, the Events "
      "about "
      "them and, with --logs, the postgres containers' logs (the previous container's too after a restart). "
      "Redacted: every Secret's data (keys and sizes are kept), managedFields, last-applied-configuration, "
      "and "
      "any value of the Cluster's Secrets found in a log or an Event. The file is created mode 0600.\n\n"
      "Exit codes: 0 written, 2 invalid arguments or the file cannot be written, 3 the Cluster was not found "
      "or the API server failed.\n\n"
      "Examples:\n"
      "  opctl cluster report db -n shop --logs\n"
      "  opctl cluster report db -n shop -f /tmp/db.tar.gz && tar tzf /tmp/db.tar.gz\n");
  command->add_option("CLUSTER", options->cluster, "The Cluster")->required();
  command->add_option("-f,--file", options->file,
                      "Where to write the bundle (default: report_cluster_CLUSTER_TIMESTAMP.tar.gz here)");
  command->add_flag("--logs", options->logs, "Include the postgres containers' logs");
  command->add_option("--tail", options->tail, "With --logs: the last this many lines of each log")
      ->check(CLI::Range(1, 10'000'000))
      ->capture_default_str();
  add_cluster_flags(*command, options->common);
  add_output_flags(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_cluster_report(*options); }; });
}

}  // namespace opctl::cli
