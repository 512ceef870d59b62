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

TEST_CASE(
    "with an object-store archive the primary runs barman-cloud-wal-archive, once the archive is checked",
    "[instance]") {
  InstanceIdentity identity;
  identity.name = "db-1";
  identity.pgdata = "/data/pgdata";
  identity.run_dir = "/run/opctl";
  identity.wal_archive_command = {"barman-cloud-wal-archive", "--endpoint-url", "http://s3:9000/a%b",
                                  "s3://backups/shop", "db"};
  identity.wal_archive_check = {"barman-cloud-check-wal-archive", "s3://backups/shop", "db"};
  auto command = postgres_command(identity, false);
  auto has = [&](const std::string& setting) {
    return std::find(command.begin(), command.end(), setting) != command.end();
  };
  CHECK(has("archive_mode=on"));
  CHECK(has("archive_timeout=60s"));
  // Each word quoted for the shell, a literal % doubled for archive_command, the segment's path last.
  CHECK(
      has("archive_command=test -f '/run/opctl/wal-archive-allowed' && 'barman-cloud-wal-archive' "
          "'--endpoint-url' 'http://s3:9000/a%%b' 's3://backups/shop' 'db' %p"));
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

TEST_CASE("postgresql.conf: initdb's file, then opctl's defaults, then the user's parameters, which win",
          "[instance][configuration]") {
  // Given user parameters, the file PostgreSQL reads should list them last (the last setting wins), quoted.
  InstanceIdentity identity;
  identity.pgdata = "/data/pgdata";
  identity.run_dir = "/run/opctl";
  std::string conf = postgresql_conf(
      identity, {{"shared_buffers", "256MB"}, {"search_path", "'$user', public"}, {"port", "6543"}});
  auto at = [&](const std::string& text) { return conf.find(text); };
  REQUIRE(at("include_if_exists '/data/pgdata/postgresql.conf'") != std::string::npos);
  REQUIRE(at("shared_buffers = '64MB'") != std::string::npos);
  REQUIRE(at("shared_buffers = '256MB'") != std::string::npos);
  CHECK(at("include_if_exists") < at("shared_buffers = '64MB'"));
  CHECK(at("shared_buffers = '64MB'") < at("shared_buffers = '256MB'"));
  CHECK(at("search_path = '''$user'', public'") != std::string::npos);
  CHECK(at("port") == std::string::npos);  // refused: opctl's, even if the pass let it through
  auto command = postgres_command(identity, false);
  CHECK(std::find(command.begin(), command.end(), "config_file=/run/opctl/postgresql.conf") != command.end());
  // What the user may override is no longer on the command line (which would win over the file).
  for (const auto& argument : command)
    CHECK(argument.rfind("shared_buffers=", 0) == std::string::npos);
}

TEST_CASE("pg_hba.conf: opctl's plumbing first, then the user's rules, then scram-sha-256 for everyone",
          "[instance][configuration]") {
  HbaOptions options;
  options.user_rules = {"host all app 10.1.0.0/16 reject", "hostssl all all all scram-sha-256"};
  std::string hba = hba_rules(true, options);
  auto at = [&](const std::string& text) { return hba.find(text); };
  REQUIRE(at("host all app 10.1.0.0/16 reject") != std::string::npos);
  CHECK(at("local all all trust") < at("host replication streaming_replica"));
  CHECK(at("host replication streaming_replica") < at("host all app 10.1.0.0/16 reject"));
  CHECK(at("host all app 10.1.0.0/16 reject") < at("hostssl all all all"));
  CHECK(at("hostssl all all all") < at("host all all all scram-sha-256"));
  CHECK(at("host all postgres") == std::string::npos);  // superuser access is on by default

  // Superuser access off: only from the other instances (pg_rewind, a failover's questions), before any
  // user rule could let it in.
  options.superuser_access = false;
  options.instance_hosts = {"10.244.0.7", "fd00::5"};
  hba = hba_rules(false, options);
  CHECK(at("host all postgres 10.244.0.7/32 scram-sha-256") != std::string::npos);
  CHECK(hba.find("host all postgres fd00::5/128 scram-sha-256") != std::string::npos);
  CHECK(hba.find("host all postgres all reject") < hba.find("host all app 10.1.0.0/16 reject"));
}

TEST_CASE("with TLS, postgresql.conf serves the run directory's certificate and replicas verify the primary",
          "[instance][tls]") {
  // Given TLS material, ssl should be on in the (reloadable) file, never settable by the user, and a
  // standby's primary_conninfo should ask for verify-full against the CA file.
  InstanceIdentity identity;
  identity.name = "db-2";
  identity.pgdata = "/data/pgdata";
  identity.run_dir = "/run/opctl";
  identity.primary_host = "db-rw";
  std::string conf = postgresql_conf(identity, {{"ssl", "off"}, {"ssl_key_file", "/tmp/k"}}, true);
  CHECK(conf.find("ssl = on\n") != std::string::npos);
  CHECK(conf.find("ssl_cert_file = '/run/opctl/tls/server.crt'") != std::string::npos);
  CHECK(conf.find("ssl_key_file = '/run/opctl/tls/server.key'") != std::string::npos);
  CHECK(conf.find("ssl_ca_file = '/run/opctl/tls/ca.crt'") != std::string::npos);
  CHECK(conf.find("'off'") == std::string::npos);
  CHECK(conf.find("/tmp/k") == std::string::npos);
  CHECK(postgresql_conf(identity, {}, false).find("ssl") == std::string::npos);

  auto standby = postgres_command(identity, true, tls_ca_path(identity));
  auto conninfo = std::find_if(standby.begin(), standby.end(),
                               [](const std::string& arg) { return arg.rfind("primary_conninfo=", 0) == 0; });
  REQUIRE(conninfo != standby.end());
  CHECK(conninfo->find("sslmode=verify-full sslrootcert=/run/opctl/tls/ca.crt") != std::string::npos);
  CHECK(primary_conninfo(identity, k_replication_user, "replication").find("sslmode=prefer") !=
        std::string::npos);
}

TEST_CASE("requireSSL rejects every TCP connection without TLS before any other rule", "[instance][tls]") {
  HbaOptions options;
  options.user_rules = {"host all app all trust"};
  CHECK(hba_rules(true, options).find("hostnossl") == std::string::npos);
  options.require_ssl = true;
  std::string hba = hba_rules(true, options);
  REQUIRE(hba.find("hostnossl all all all reject") != std::string::npos);
  CHECK(hba.find("local all all trust") < hba.find("hostnossl all all all reject"));
  CHECK(hba.find("hostnossl all all all reject") < hba.find("host replication"));
  CHECK(hba.find("hostnossl all all all reject") < hba.find("host all app all trust"));
}
