#include "instance/postgres_settings.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/object_store.hpp"

namespace opctl::instance {

std::string socket_dir(const InstanceIdentity& identity) {
  return identity.run_dir + "/socket";
}

std::string hba_path(const InstanceIdentity& identity) {
  return identity.run_dir + "/pg_hba.conf";
}

std::string passfile_path(const InstanceIdentity& identity) {
  return identity.run_dir + "/pgpass";
}

std::string config_path(const InstanceIdentity& identity) {
  return identity.run_dir + "/postgresql.conf";
}

std::string tls_certificate_path(const InstanceIdentity& identity) {
  return identity.run_dir + "/tls/server.crt";
}

std::string tls_key_path(const InstanceIdentity& identity) {
  return identity.run_dir + "/tls/server.key";
}

std::string tls_ca_path(const InstanceIdentity& identity) {
  return identity.run_dir + "/tls/ca.crt";
}

std::string slot_name(const std::string& instance) {
  std::string slot = k_slot_prefix;
  for (char c : instance)
    slot += (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
  return slot;
}

std::string conninfo_value(const std::string& value) {
  bool plain = !value.empty() && value.find_first_of(" '\\") == std::string::npos;
  if (plain) return value;
  std::string quoted = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

std::string quote_identifier(const std::string& name) {
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string primary_conninfo(const InstanceIdentity& identity, const std::string& user,
                             const std::string& database, const std::string& ssl_root_certificate) {
  std::string ssl = ssl_root_certificate.empty()
                        ? std::string("sslmode=prefer")
                        : "sslmode=verify-full sslrootcert=" + conninfo_value(ssl_root_certificate);
  return fmt::format("host={} port={} user={} dbname={} passfile={} application_name={} connect_timeout=5 {}",
                     conninfo_value(identity.primary_host), identity.primary_port, conninfo_value(user),
                     conninfo_value(database), conninfo_value(passfile_path(identity)),
                     conninfo_value(identity.name), ssl);
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string archive_allowed_path(const InstanceIdentity& identity) {
  return identity.run_dir + "/wal-archive-allowed";
}

std::string archive_command(const std::string& directory, const std::string& allowed) {
  std::string dir = shell_quote(directory);
  return fmt::format(
      "test -f {1} && if [ -f {0}/%f ]; then cmp -s %p {0}/%f; else cp %p {0}/.%f.partial && sync "
      "{0}/.%f.partial && mv {0}/.%f.partial {0}/%f; fi",
      dir, shell_quote(allowed));
}

std::string store_archive_command(const std::vector<std::string>& argv, const std::string& allowed) {
  std::string command = "test -f " + shell_quote(allowed) + " &&";
  for (const auto& word : argv)
    command += " " + kinds::command_word(word);
  return command + " %p";
}

std::vector<std::string> postgres_command(const InstanceIdentity& identity, bool standby,
                                          const std::string& ssl_root_certificate) {
  std::vector<std::string> command = {"postgres", "-D", identity.pgdata};
  auto set = [&](const std::string& name, const std::string& value) {
    command.push_back("-c");
    command.push_back(name + "=" + value);
  };
  set("listen_addresses", identity.listen_addresses);
  set("port", std::to_string(identity.port));
  set("unix_socket_directories", socket_dir(identity));
  set("unix_socket_permissions", "0700");
  set("config_file", config_path(identity));
  set("hba_file", hba_path(identity));
  set("cluster_name", identity.name);
  set("password_encryption", "scram-sha-256");
  set("wal_level", "replica");
  set("hot_standby", "on");
  // One sender and one slot per replica of the largest Cluster, and as many
  // again for base backups (clones, backup Jobs) running beside them.
  set("max_wal_senders", std::to_string(kinds::cluster::k_replication_limit));
  set("max_replication_slots", std::to_string(kinds::cluster::k_replication_limit));
  // pg_rewind needs hints or checksums; initdb turns checksums on, but a
  // restored or upgraded data directory may lack them.
  set("wal_log_hints", "on");
  set("logging_collector", "off");
  set("log_destination", "stderr");
  if (!identity.wal_archive_dir.empty()) {
    // Only a primary archives (archive_mode on, not always). A segment that
    // is already there with the same bytes counts as archived: a promoted
    // replica archives again what its old primary archived before it failed.
    set("archive_mode", "on");
    set("archive_timeout", "60s");
    set("archive_command", archive_command(identity.wal_archive_dir, archive_allowed_path(identity)));
  } else if (!identity.wal_archive_command.empty()) {
    // barman-cloud-wal-archive uploads the segment (and retries its own requests); a failure leaves the
    // segment in pg_wal, and PostgreSQL retries it.
    set("archive_mode", "on");
    set("archive_timeout", "60s");
    set("archive_command",
        store_archive_command(identity.wal_archive_command, archive_allowed_path(identity)));
  }
  if (standby) {
    set("primary_conninfo",
        primary_conninfo(identity, k_replication_user, "replication", ssl_root_certificate));
    set("primary_slot_name", slot_name(identity.name));
    set("recovery_target_timeline", "latest");
    set("wal_receiver_timeout", "10s");
    set("wal_retrieve_retry_interval", "1s");
  }
  return command;
}

std::string conf_value(const std::string& value) {
  std::string quoted = "'";
  for (char c : value)
    quoted += c == '\'' ? std::string("''") : c == '\\' ? std::string("\\\\") : std::string(1, c);
  return quoted + "'";
}

std::string postgresql_conf(const InstanceIdentity& identity,
                            const std::map<std::string, std::string>& parameters, bool tls) {
  std::string out =
      "# Written by opctl instance from the Cluster's spec.postgresql.parameters; the file PostgreSQL reads\n"
      "# (config_file). Settings opctl owns are on the postgres command line, which wins over this file.\n";
  // initdb's own file keeps what it chose (lc_messages, timezone, max_connections ...).
  out += "include_if_exists " + conf_value(identity.pgdata + "/postgresql.conf") + "\n";
  out += "shared_buffers = '64MB'\nwal_keep_size = '128MB'\nhot_standby_feedback = on\n";
  if (tls) {
    // Here, not on the command line: a server without TLS takes it on with a reload.
    out += "# spec.certificates (ssl* parameters are refused in spec.postgresql.parameters)\nssl = on\n";
    out += "ssl_cert_file = " + conf_value(tls_certificate_path(identity)) + "\n";
    out += "ssl_key_file = " + conf_value(tls_key_path(identity)) + "\n";
    out += "ssl_ca_file = " + conf_value(tls_ca_path(identity)) + "\n";
  }
  out += "# spec.postgresql.parameters\n";
  for (const auto& [name, value] : parameters)
    if (!kinds::cluster::refused_parameter(name)) out += name + " = " + conf_value(value) + "\n";
  return out;
}

std::string hba_rules(bool serves_replication, const HbaOptions& options) {
  std::string out =
      "# Written by opctl instance from the Cluster's spec; the file PostgreSQL reads (hba_file).\n"
      "local all all trust\n";
  if (options.require_ssl) out += "hostnossl all all all reject\n";
  // A standby refuses replication connections: a replica (or a clone) that
  // reached it through a -rw Service not yet pointing at the new primary
  // must not stream from it (cascading), it retries until -rw leads to the primary.
  out += serves_replication ? "host replication streaming_replica all scram-sha-256\n"
                            : "host replication all all reject\n";
  if (!options.superuser_access) {
    for (const auto& host : options.instance_hosts)
      out += fmt::format("host all {} {}/{} scram-sha-256\n", k_superuser, host,
                         host.find(':') == std::string::npos ? 32 : 128);
    out += fmt::format("host all {} all reject\n", k_superuser);
  }
  if (!options.user_rules.empty()) {
    out += "# spec.postgresql.pg_hba\n";
    for (const auto& rule : options.user_rules)
      out += rule + "\n";
  }
  return out + "host all all all scram-sha-256\n";
}

std::string synchronous_standby_names(const std::vector<std::string>& peers, int streaming, int min_sync,
                                      int max_sync) {
  if (max_sync <= 0 || peers.empty()) return "";
  int wanted = std::clamp(streaming, min_sync, max_sync);
  // minSyncReplicas 0 and no standby streaming: commits do not wait (they
  // would wait forever); they wait again once a standby streams.
  if (wanted <= 0) return "";
  wanted = std::min(wanted, static_cast<int>(peers.size()));
  std::vector<std::string> names;
  for (const auto& peer : peers)
    names.push_back(quote_identifier(peer));
  return fmt::format("ANY {} ({})", wanted, fmt::join(names, ", "));
}

SyncQuorum sync_quorum_of(const std::string& setting) {
  SyncQuorum quorum;
  if (setting.rfind("ANY ", 0) != 0) return quorum;
  auto open = setting.find('(');
  auto close = setting.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return quorum;
  int required = std::atoi(setting.substr(4, open - 4).c_str());
  std::string list = setting.substr(open + 1, close - open - 1);
  for (std::size_t start = 0; start <= list.size();) {
    auto comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string name = list.substr(start, comma - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    if (!name.empty()) quorum.names.push_back(name);
    start = comma + 1;
  }
  if (required > 0 && !quorum.names.empty())
    quorum.required = required;
  else
    quorum.names.clear();
  return quorum;
}

SyncQuorum sync_quorum_union(const SyncQuorum& in_force, const SyncQuorum& next) {
  // From asynchronous: nothing was promised before, the new promise holds from the change on.
  if (in_force.required == 0) return next;
  // To asynchronous: the old promise holds for what was acknowledged under it.
  if (next.required == 0) return in_force;
  SyncQuorum both{std::min(in_force.required, next.required), in_force.names};
  for (const auto& name : next.names)
    if (std::find(both.names.begin(), both.names.end(), name) == both.names.end()) both.names.push_back(name);
  return both;
}

}  // namespace opctl::instance
