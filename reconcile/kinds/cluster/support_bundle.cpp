#include "kinds/cluster/support_bundle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "kinds/cluster/cluster_overview.hpp"
#include "model/base64.hpp"
#include "model/redaction.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

constexpr const char* k_bundle_last_applied = "kubectl.kubernetes.io/last-applied-configuration";

std::string bundle_name_of(const Json& object) {
  return object.contains("metadata") && object["metadata"].is_object() ? object["metadata"].value("name", "")
                                                                       : "";
}

// Every value of the Cluster's Secrets (decoded), longest first, to mask in free text.
std::vector<std::string> bundle_secret_values(const std::vector<Json>& children) {
  std::set<std::string> values;
  for (const auto& child : children) {
    if (child.value("kind", "") != "Secret" || !child.contains("data") || !child["data"].is_object())
      continue;
    for (const auto& [key, encoded] : child["data"].items()) {
      if (!encoded.is_string()) continue;
      auto decoded = model::base64_decode(encoded.get<std::string>());
      // Very short values (a port, "app") would mask ordinary words; none of the generated secrets is short.
      if (decoded && decoded->size() >= 8) values.insert(*decoded);
    }
  }
  std::vector<std::string> ordered(values.begin(), values.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return ordered;
}

std::string bundle_readme(const BundleInputs& inputs) {
  const Json& metadata = (*inputs.cluster)["metadata"];
  return fmt::format(
      "Support bundle of Cluster {}/{}, written by opctl {} at {}.\n\n"
      "status.txt / status.json   what `opctl cluster status` shows\n"
      "cluster.yaml               the Cluster\n"
      "objects/KIND/NAME.yaml     its Pods, volumes, Services, Secrets, Jobs, budgets and primary Lease\n"
      "backups/NAME.yaml          the Backups that name it\n"
      "events.yaml                the Events about any of these\n"
      "logs/POD.log               the postgres containers' logs (with --logs)\n\n"
      "Redacted: the data of every Secret (only its keys and sizes are kept), managedFields, the\n"
      "last-applied-configuration annotation, and every value of the Cluster's Secrets wherever it\n"
      "appears in a log or an event message (as ***).\n",
      metadata.value("namespace", ""), metadata.value("name", ""), inputs.opctl_version,
      format_time(inputs.now));
}

}  // namespace

Json redacted_object(const Json& object) {
  Json out = object;
  if (out.contains("metadata") && out["metadata"].is_object()) {
    Json& metadata = out["metadata"];
    metadata.erase("managedFields");
    if (metadata.contains("annotations") && metadata["annotations"].is_object()) {
      metadata["annotations"].erase(k_bundle_last_applied);
      if (metadata["annotations"].empty()) metadata.erase("annotations");
    }
  }
  if (out.value("kind", "") == "Secret") {
    for (const char* field : {"data", "stringData"}) {
      if (!out.contains(field) || !out[field].is_object()) continue;
      for (auto& [key, value] : out[field].items()) {
        std::size_t size = 0;
        if (value.is_string()) {
          auto decoded = std::string(field) == "data" ? model::base64_decode(value.get<std::string>())
                                                      : std::optional<std::string>(value.get<std::string>());
          size = decoded ? decoded->size() : 0;
        }
        value = fmt::format("<redacted: {} bytes>", size);
      }
    }
  }
  return out;
}

std::vector<BundleFile> support_bundle(const BundleInputs& inputs) {
  const Json& cluster = *inputs.cluster;
  std::string name = bundle_name_of(cluster);
  std::vector<std::string> secrets = bundle_secret_values(inputs.children);
  std::vector<BundleFile> files;

  OverviewInputs overview_inputs{inputs.cluster, inputs.children, inputs.backups, inputs.now};
  files.push_back({"status.json", cluster_overview(overview_inputs), ""});
  files.push_back({"cluster.yaml", redacted_object(cluster), ""});

  std::set<std::string> involved = {name};
  for (const auto& child : inputs.children) {
    std::string kind = child.value("kind", "Object");
    files.push_back(
        {fmt::format("objects/{}/{}.yaml", kind, bundle_name_of(child)), redacted_object(child), ""});
    involved.insert(bundle_name_of(child));
  }
  for (const auto& backup : inputs.backups) {
    if (backup.value("/spec/cluster"_json_pointer, "") != name) continue;
    files.push_back({fmt::format("backups/{}.yaml", bundle_name_of(backup)), redacted_object(backup), ""});
    involved.insert(bundle_name_of(backup));
  }
  Json events = Json::array();
  for (const auto& event : inputs.events) {
    std::string about = event.value("/involvedObject/name"_json_pointer, "");
    if (!involved.contains(about)) continue;
    Json kept = redacted_object(event);
    if (kept.contains("message") && kept["message"].is_string())
      kept["message"] = model::redact_credentials(kept["message"].get<std::string>(), secrets);
    events.push_back(std::move(kept));
  }
  files.push_back({"events.yaml", events, ""});
  for (const auto& [file, log] : inputs.logs)
    files.push_back({"logs/" + file, nullptr, model::redact_credentials(log, secrets)});
  files.insert(files.begin(), BundleFile{"README.txt", nullptr, bundle_readme(inputs)});
  return files;
}

}  // namespace opctl::kinds::cluster
