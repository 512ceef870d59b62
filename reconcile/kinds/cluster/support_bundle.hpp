// What goes into `opctl cluster report`'s support bundle, and how it is
// made safe to send to someone else: every Secret's data is replaced by its
// keys and sizes, annotations that may carry a whole manifest
// (last-applied-configuration) and managedFields go, and every Secret value
// of the Cluster found in a log or event is replaced by ***. The bundle's
// I/O (reading objects and logs, writing the archive) is the command's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kinds/kind_time.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

struct BundleInputs {
  const model::Json* cluster = nullptr;
  std::vector<model::Json> children;        // as read_cluster_objects() gives them
  std::vector<model::Json> backups;         // the Backups of its namespace (others are left out)
  std::vector<model::Json> events;          // the namespace's Events (those about others are left out)
  std::map<std::string, std::string> logs;  // file name (e.g. "db-1.log") -> the container's log
  std::string opctl_version;
  TimePoint now;
};

struct BundleFile {
  std::string path;      // relative, '/'-separated
  model::Json document;  // written as YAML, or
  std::string text;      // written as is (logs, README) when `document` is null
};

std::vector<BundleFile> support_bundle(const BundleInputs& inputs);

// `object` without Secret values, managedFields and last-applied-configuration.
model::Json redacted_object(const model::Json& object);

}  // namespace opctl::kinds::cluster
