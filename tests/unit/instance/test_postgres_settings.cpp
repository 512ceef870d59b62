#include <catch2/catch.hpp>

#include "instance/postgres_settings.hpp"
#include "kinds/cluster/cluster_spec.hpp"

using namespace opctl::instance;

TEST_CASE("synchronous_standby_names waits for ANY n of the other instances", "[instance]") {
  std::vector<std::string> peers = {"db-2", "db-3"};
  CHECK(synchronous_standby_names(peers, 2, 0, 0).empty());  // asynchronous
  CHECK(synchronous_standby_names({}, 0, 1, 1).empty());
  CHECK(synchronous_standby_names(peers, 2, 1, 1) == "ANY 1 (\"db-2\", \"db-3\")");
  CHECK(synchronous_standby_names(peers, 2, 1, 2) == "ANY 2 (\"db-2\", \"db-3\")");
  // Fewer streaming than the minimum: still the minimum, so commits wait rather than lose safety.
  CHECK(synchronous_standby_names(peers, 0, 1, 2) == "ANY 1 (\"db-2\", \"db-3\")");
  // minSyncReplicas 0: synchronous while a standby streams, asynchronous (commits never hang) while none
  // does.
  CHECK(synchronous_standby_names(peers, 1, 0, 1) == "ANY 1 (\"db-2\", \"db-3\")");
  CHECK(synchronous_standby_names(peers, 0, 0, 1).empty());
  CHECK(synchronous_standby_names(peers, 0, 0, 2).empty());
  CHECK(synchronous_standby_names({"db-2"}, 1, 1, 2) == "ANY 1 (\"db-2\")");  // never more than the peers
}

TEST_CASE("slot names and connection strings", "[instance]") {
  CHECK(slot_name("db-2") == "_opctl_db_2");
  CHECK(conninfo_value("db-rw") == "db-rw");
  CHECK(conninfo_value("it's here") == "'it\\'s here'");
  CHECK(quote_identifier("a\"b") == "\"a\"\"b\"");
  InstanceIdentity identity;
  identity.name = "db-2";
  identity.primary_host = "db-rw";
  identity.run_dir = "/run/opctl";
  std::string conninfo = primary_conninfo(identity, k_replication_user, "replication");
  CHECK(conninfo.find("host=db-rw ") != std::string::npos);
  CHECK(conninfo.find("application_name=db-2") != std::string::npos);
  CHECK(conninfo.find("passfile=/run/opctl/pgpass") != std::string::npos);
  CHECK(conninfo.find("password") == std::string::npos);
}

TEST_CASE("per-instance settings are on the command line, never in PGDATA", "[instance]") {
  InstanceIdentity identity;
  identity.name = "db-2";
  identity.pgdata = "/data/pgdata";
  identity.run_dir = "/run/opctl";
  auto primary = postgres_command(identity, false);
  auto standby = postgres_command(identity, true);
  auto has = [](const std::vector<std::string>& command, const std::string& setting) {
    return std::find(command.begin(), command.end(), setting) != command.end();
  };
  CHECK(has(primary, "hba_file=/run/opctl/pg_hba.conf"));
  CHECK(has(primary, "cluster_name=db-2"));
  CHECK_FALSE(has(primary, "primary_slot_name=_opctl_db_2"));
  CHECK(has(standby, "primary_slot_name=_opctl_db_2"));
  CHECK(hba_rules(true).find("host replication streaming_replica all scram-sha-256") != std::string::npos);
  // A standby is never an upstream: a replica that reached it through a stale -rw retries.
  CHECK(hba_rules(false).find("host replication all all reject") != std::string::npos);
  CHECK(hba_rules(false).find("streaming_replica") == std::string::npos);
}

TEST_CASE("with a WAL archive directory the primary archives each segment there, atomically and idempotently",
          "[instance]") {
  InstanceIdentity identity;
  identity.name = "db-1";
  identity.pgdata = "/data/pgdata";
  identity.run_dir = "/run/opctl";
  auto has = [](const std::vector<std::string>& command, const std::string& setting) {
    return std::find(command.begin(), command.end(), setting) != command.end();
  };
  CHECK_FALSE(has(postgres_command(identity, false), "archive_mode=on"));
  identity.wal_archive_dir = "/backups/nightly/wal";
  auto command = postgres_command(identity, false);
  CHECK(has(command, "archive_mode=on"));
  CHECK(has(command, "archive_timeout=60s"));
  CHECK(has(command,
            "archive_command=" + archive_command("/backups/nightly/wal", "/run/opctl/wal-archive-allowed")));
  // Nothing is copied until the manager has checked that the archive is this Cluster's.
  CHECK(archive_command("/backups/nightly/wal", "/run/opctl/wal-archive-allowed") ==
        "test -f '/run/opctl/wal-archive-allowed' && if [ -f '/backups/nightly/wal'/%f ]; then cmp -s %p "
        "'/backups/nightly/wal'/%f; else cp %p '/backups/nightly/wal'/.%f.partial && sync "
        "'/backups/nightly/wal'/.%f.partial && mv '/backups/nightly/wal'/.%f.partial "
        "'/backups/nightly/wal'/%f; fi");
  CHECK(shell_quote("it's") == "'it'\\''s'");
}

TEST_CASE("replication limits leave a sender and a slot for every replica of the largest Cluster, twice over",
          "[instance]") {
  InstanceIdentity identity;
  identity.pgdata = "/data/pgdata";
  identity.run_dir = "/run/opctl";
  auto command = postgres_command(identity, false);
  auto setting = [&](const std::string& name) {
    for (const auto& argument : command)
      if (argument.starts_with(name + "=")) return std::stoi(argument.substr(name.size() + 1));
    return 0;
  };
  // 12 instances used to exceed the fixed 10, and the primary's failure to serve them failed it over in a
  // loop.
  CHECK(setting("max_wal_senders") >= 2 * opctl::kinds::cluster::k_max_instances);
  CHECK(setting("max_replication_slots") >= 2 * opctl::kinds::cluster::k_max_instances);
}
