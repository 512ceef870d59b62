#include "kinds/cluster/postgres_configuration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "model/sha256.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;
using schema::Schema;

struct Refusal {
  const char* name;
  const char* why;
};

// What opctl instance sets itself (postgres_settings.cpp) or relies upon, in
// the spirit of CloudNativePG's fixed and blocked parameters. Only settings
// whose change would break opctl's own work: every other one is the user's.
constexpr const char* k_connectivity =
    "opctl runs every instance on this (the Pods, Services and probes depend on it)";
constexpr const char* k_replication = "opctl sets it for streaming replication and failover";
constexpr const char* k_archiving = "opctl sets it from spec.walArchive";
constexpr const char* k_recovery =
    "opctl sets it when an instance follows or is restored (spec.bootstrap.recovery)";
constexpr const char* k_logging = "opctl logs to stderr, where `kubectl logs` reads it";
constexpr const char* k_sync = "opctl sets it from spec.minSyncReplicas and spec.maxSyncReplicas";
constexpr const char* k_files =
    "opctl writes these files itself (use spec.postgresql.pg_hba for access rules)";
constexpr const char* k_safety = "opctl relies on PostgreSQL's default (crash safety, pg_rewind)";
constexpr const char* k_tls = "opctl sets it from spec.certificates (opctl-cluster-kind(5), TLS)";
constexpr Refusal k_refused[] = {
    {"include", k_files},
    {"include_if_exists", k_files},
    {"include_dir", k_files},
    {"listen_addresses", k_connectivity},
    {"port", k_connectivity},
    {"unix_socket_directories", k_connectivity},
    {"unix_socket_group", k_connectivity},
    {"unix_socket_permissions", k_connectivity},
    {"bonjour", k_connectivity},
    {"bonjour_name", k_connectivity},
    {"data_directory", k_files},
    {"config_file", k_files},
    {"hba_file", k_files},
    {"ident_file", k_files},
    {"external_pid_file", k_files},
    {"cluster_name", "opctl names each instance's server after its Pod"},
    {"password_encryption", "opctl's pg_hba.conf requires scram-sha-256 passwords"},
    {"wal_level", k_replication},
    {"hot_standby", k_replication},
    {"max_wal_senders", k_replication},
    {"max_replication_slots", k_replication},
    {"wal_log_hints", k_replication},
    {"wal_receiver_timeout", k_replication},
    {"wal_retrieve_retry_interval", k_replication},
    {"primary_conninfo", k_replication},
    {"primary_slot_name", k_replication},
    {"promote_trigger_file", k_replication},
    {"recovery_min_apply_delay", k_replication},
    {"synchronous_standby_names", k_sync},
    {"archive_mode", k_archiving},
    {"archive_command", k_archiving},
    {"archive_library", k_archiving},
    {"archive_timeout", k_archiving},
    {"archive_cleanup_command", k_archiving},
    {"restore_command", k_recovery},
    {"recovery_end_command", k_recovery},
    {"recovery_target", k_recovery},
    {"recovery_target_action", k_recovery},
    {"recovery_target_inclusive", k_recovery},
    {"recovery_target_lsn", k_recovery},
    {"recovery_target_name", k_recovery},
    {"recovery_target_time", k_recovery},
    {"recovery_target_timeline", k_recovery},
    {"recovery_target_xid", k_recovery},
    {"logging_collector", k_logging},
    {"log_destination", k_logging},
    {"log_directory", k_logging},
    {"log_filename", k_logging},
    {"log_file_mode", k_logging},
    {"log_rotation_age", k_logging},
    {"log_rotation_size", k_logging},
    {"log_truncate_on_rotation", k_logging},
    {"syslog_facility", k_logging},
    {"syslog_ident", k_logging},
    {"syslog_sequence_numbers", k_logging},
    {"syslog_split_messages", k_logging},
    {"event_source", k_logging},
    {"full_page_writes", k_safety},
    {"fsync", k_safety},
    {"data_sync_retry", k_safety},
    {"restart_after_crash", k_safety},
    {"allow_system_table_mods", k_safety},
    {"ssl", k_tls},
    {"ssl_ca_file", k_tls},
    {"ssl_cert_file", k_tls},
    {"ssl_crl_file", k_tls},
    {"ssl_crl_dir", k_tls},
    {"ssl_key_file", k_tls},
    {"ssl_passphrase_command", k_tls},
    {"ssl_passphrase_command_supports_reload", k_tls},
    {"ssl_dh_params_file", k_tls},
};

// Letters, digits, '_' and the '.' of an extension's own settings (pg_stat_statements.max).
const std::regex k_parameter_name("^[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)?$");

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::optional<std::string> refused_parameter(const std::string& name) {
  std::string key = lowercase(name);
  for (const auto& refusal : k_refused)
    if (key == refusal.name) return std::string(refusal.why);
  return std::nullopt;
}

std::string check_hba_line(const std::string& line) {
  if (line.find_first_of("\r\n") != std::string::npos) return "one rule per list item, without line breaks";
  std::string first = lowercase(line.substr(0, line.find_first_of(" \t")));
  // An included file would be read from the instance's disk, which the spec cannot write.
  if (first.rfind("include", 0) == 0) return "include directives are not supported";
  if (first.rfind('@', 0) == 0) return "file inclusions (@file) are not supported";
  return "";
}

std::vector<schema::Issue> configuration_issues(const Json& spec) {
  std::vector<schema::Issue> issues;
  if (!spec.is_object() || !spec.contains("postgresql") || !spec["postgresql"].is_object()) return issues;
  const Json& postgresql = spec["postgresql"];
  // One issue per parameter and per rule, each at its own line.
  if (postgresql.contains("parameters") && postgresql["parameters"].is_object())
    for (const auto& [name, value] : postgresql["parameters"].items()) {
      std::string pointer = "/spec/postgresql/parameters/" + name;
      std::string field = "spec.postgresql.parameters." + name;
      if (!std::regex_match(name, k_parameter_name))
        issues.push_back({pointer, field, fmt::format("\"{}\" is not a PostgreSQL parameter name", name)});
      else if (auto why = refused_parameter(name))
        issues.push_back({pointer, field, fmt::format("opctl owns {}: {}; remove it", name, *why)});
      else if (value.is_string() && value.get<std::string>().find_first_of("\r\n") != std::string::npos)
        issues.push_back({pointer, field, "a value cannot span lines"});
    }
  if (postgresql.contains("pg_hba") && postgresql["pg_hba"].is_array())
    for (std::size_t i = 0; i < postgresql["pg_hba"].size(); ++i)
      if (const Json& line = postgresql["pg_hba"][i]; line.is_string())
        if (std::string problem = check_hba_line(line.get<std::string>()); !problem.empty())
          issues.push_back({fmt::format("/spec/postgresql/pg_hba/{}", i),
                            fmt::format("spec.postgresql.pg_hba[{}]", i), problem});
  return issues;
}

PostgresConfiguration postgres_configuration(const Json& spec) {
  PostgresConfiguration out;
  if (!spec.is_object()) return out;
  if (spec.contains("enableSuperuserAccess") && spec["enableSuperuserAccess"].is_boolean())
    out.superuser_access = spec["enableSuperuserAccess"].get<bool>();
  if (!spec.contains("postgresql") || !spec["postgresql"].is_object()) return out;
  const Json& postgresql = spec["postgresql"];
  if (postgresql.contains("parameters") && postgresql["parameters"].is_object())
    for (const auto& [name, value] : postgresql["parameters"].items())
      if (value.is_string()) out.parameters[name] = value.get<std::string>();
  if (postgresql.contains("pg_hba") && postgresql["pg_hba"].is_array())
    for (const auto& line : postgresql["pg_hba"])
      if (line.is_string()) out.pg_hba.push_back(line.get<std::string>());
  if (postgresql.contains("requireSSL") && postgresql["requireSSL"].is_boolean())
    out.require_ssl = postgresql["requireSSL"].get<bool>();
  return out;
}

std::string configuration_hash(const PostgresConfiguration& configuration) {
  Json inputs = {{"parameters", configuration.parameters},
                 {"pg_hba", configuration.pg_hba},
                 {"superuserAccess", configuration.superuser_access}};
  // Only when set: Clusters without it keep the hash they had, and nothing waits for a reload.
  if (configuration.require_ssl) inputs["requireSSL"] = true;
  return model::sha256_hex(inputs.dump()).substr(0, 16);
}

Schema postgresql_schema() {
  return Schema::object()
      .describe(
          "PostgreSQL's configuration, the same on every instance (opctl-cluster-kind(5), CONFIGURATION)")
      .field(
          "parameters",
          Schema::map(Schema::string())
              .describe("postgresql.conf settings (values are strings: \"256MB\", \"on\", \"200\"); applied "
                        "by a reload, or by a rolling restart when PostgreSQL needs one. Parameters opctl "
                        "sets itself are refused"))
      .field("pg_hba", Schema::array(Schema::string())
                           .describe("pg_hba.conf rules, in order, before opctl's default rule (password, "
                                     "scram-sha-256, for everyone else)"))
      .field("requireSSL",
             Schema::boolean()
                 .describe("refuse every TCP connection that does not use TLS (a hostnossl reject rule "
                           "before all others, opctl's and spec.postgresql.pg_hba's); false: TLS is offered, "
                           "plain connections are still accepted")
                 .default_value(false));
}

Schema superuser_access_schema() {
  return Schema::boolean()
      .describe(
          "allow the postgres superuser to log in over the network (with the -superuser "
          "Secret's password); false: only from the Cluster's own instances")
      .default_value(true);
}

}  // namespace opctl::kinds::cluster
