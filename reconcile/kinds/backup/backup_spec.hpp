// The Backup kind's spec, its schema (one definition for the CRD and for
// validation) and the reading of a checked spec into a struct.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "kinds/object_store.hpp"
#include "kinds/schema/schema.hpp"
#include "model/object.hpp"

namespace opctl::kinds::backup {

inline constexpr const char* k_group = "opctl.io";
inline constexpr const char* k_version = "v1alpha1";
inline constexpr const char* k_kind = "Backup";
// Job names are <backup>-now-<10 digits>, and a Job name must fit a label value.
inline constexpr std::size_t k_max_name_length = 48;

struct BackupTarget {
  std::string pvc;                             // a PersistentVolumeClaim's name, or
  model::Json volume = model::Json::object();  // any Pod volume source, or
  std::optional<ObjectStore> object_store;     // an S3-compatible bucket (Barman Cloud)
};

struct BackupSpec {
  std::string cluster;
  std::optional<std::string> schedule;  // absent: one backup now
  std::string time_zone;                // empty: UTC
  bool suspend = false;
  std::string method = "pg_basebackup";  // or pg_dump
  std::optional<int> keep;
  std::optional<std::chrono::seconds> max_age;
  BackupTarget target;
};

schema::Schema spec_schema();
schema::Schema status_schema();
model::Json backup_crd();

// Every problem with a spec as written (schema, cron, time zone), as issues
// with JSON pointers under /spec.
std::vector<schema::Issue> check_spec(const model::Json& spec);

// Reads a spec that check_spec found no issue with (defaults filled in).
BackupSpec read_spec(const model::Json& spec);

}  // namespace opctl::kinds::backup
