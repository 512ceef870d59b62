// A primary and a replica, each a real PostgreSQL run by an InstanceManager
// on 127.0.0.1, with the inputs the Kubernetes side would give them held in
// memory, and the primary Lease in a store that behaves as the API server
// does (a resourceVersion per write, stale writes refused), which a test can
// cut one instance off from. Every check reads PostgreSQL back through psql (an application's
// view) or the manager's own libpq layer (the superuser's).
#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "instance/instance_error.hpp"
#include "instance/instance_manager.hpp"
#include "instance/lease_keeper.hpp"
#include "instance/metrics_collector.hpp"
#include "instance/postgres_settings.hpp"
#include "instance/wal_archive_owner.hpp"
#include "instance/write_deadline.hpp"
#include "kinds/cluster/managed_objects.hpp"
#include "kinds/cluster/tls_certificates.hpp"
#include "process/child_process.hpp"

namespace opctl::instance {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class MemoryLeaseStore {
 public:
  std::optional<LeaseRecord> read() {
    std::lock_guard lock(mutex_);
    return record_;
  }
  WriteOutcome write(LeaseRecord& record, std::string& error) {
    std::lock_guard lock(mutex_);
    if (record.resource_version != record_.resource_version) {
      error = "Conflict: the object has been modified";
      return WriteOutcome::conflict;
    }
    record_ = record;
    record_.resource_version = std::to_string(++version_);
    record = record_;
    return WriteOutcome::written;
  }

 private:
  std::mutex mutex_;
  int version_ = 1;
  LeaseRecord record_{"", "", 0, 0, "1", {}, ""};
};

// One instance's way to the shared Lease; `cut_off` is the API server out of its reach.
class LeaseLink : public LeaseStore {
 public:
  explicit LeaseLink(MemoryLeaseStore& shared) : shared_(shared) {}
  std::atomic<bool> cut_off{false};
  std::optional<LeaseRecord> read() override {
    if (cut_off) throw InstanceError("the API server is out of reach");
    return shared_.read();
  }
  WriteOutcome write(LeaseRecord& record, std::string& error) override {
    if (cut_off) {
      error = "the API server is out of reach";
      return WriteOutcome::failed;
    }
    return shared_.write(record, error);
  }

 private:
  MemoryLeaseStore& shared_;
};

// Short Lease timings, so a failover takes seconds (they keep the invariant).
LeaseTimings test_timings() {
  return {std::chrono::seconds(5), std::chrono::seconds(2), std::chrono::seconds(1)};
}

class HeldInputs : public InstanceEnvironment {
 public:
  Inputs inputs;
  std::vector<InstanceReport> reports;
  Inputs observe() override { return inputs; }
  void report(const InstanceReport& report) override { reports.push_back(report); }
};

Credentials credentials() {
  return {"super-secret", "app", "app-password-1", "app", "replication-secret"};
}

struct Node {
  InstanceIdentity identity;
  HeldInputs environment;
  ManagerOptions options;
  LeaseLink lease_link;
  std::unique_ptr<WriteDeadline> deadline;
  std::unique_ptr<LeaseKeeper> keeper;
  std::unique_ptr<InstanceManager> manager;

  Node(const fs::path& root, const std::string& name, int port, int primary_port, MemoryLeaseStore& lease)
      : lease_link(lease) {
    identity.cluster = "db";
    identity.name = name;
    identity.namespace_name = "test";
    identity.pgdata = (root / name / "pgdata").string();
    identity.run_dir = (root / name / "run").string();
    identity.port = port;
    identity.primary_host = "127.0.0.1";
    identity.primary_port = primary_port;
    identity.listen_addresses = "127.0.0.1";
    fs::create_directories(identity.run_dir);
    environment.inputs.credentials = credentials();
    environment.inputs.lease_timings = test_timings();
    restart_manager();
  }
  // What a container restart does: a new manager, nothing remembered but the data.
  void restart_manager() {
    stop_manager();
    deadline = std::make_unique<WriteDeadline>(identity.run_dir);
    deadline->clear();
    keeper = std::make_unique<LeaseKeeper>(lease_link, identity.name, *deadline);
    keeper->set_timings(test_timings());
    manager = std::make_unique<InstanceManager>(identity, environment, *keeper, options);
  }
  // The container exits: its PostgreSQL with it, and nobody renews its Lease.
  void stop_manager() {
    manager.reset();
    keeper.reset();
  }
  void step() { manager->step(); }
  bool ready() const { return manager->ready(); }
  const InstanceReport& report() const { return manager->last_report(); }
};

class Loopback {
 public:
  Loopback() {
    std::string pattern = (fs::temp_directory_path() / "opctl-loopback.XXXXXX").string();
    root_ = mkdtemp(pattern.data());
  }
  ~Loopback() {
    nodes_.clear();  // stops the servers first
    fs::remove_all(root_);
  }
  const fs::path& root() const { return root_; }
  // `primary` is the instance the Cluster wants as its primary (status.targetPrimary).
  // Instances of another Cluster (`cluster`) take that Cluster's Lease.
  Node& add(const std::string& name, int port, int primary_port, const std::string& primary,
            const std::string& cluster = "db") {
    MemoryLeaseStore& lease = leases_[cluster];
    nodes_.push_back(std::make_unique<Node>(root_, name, port, primary_port, lease));
    nodes_.back()->identity.cluster = cluster;
    nodes_.back()->environment.inputs.target_primary = primary;
    nodes_.back()->environment.inputs.current_primary = primary;
    return *nodes_.back();
  }
  MemoryLeaseStore& lease() { return leases_["db"]; }

 private:
  std::map<std::string, MemoryLeaseStore> leases_;
  fs::path root_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

// Two TCP ports on 127.0.0.1 that nothing uses now, chosen by the kernel
// (both sockets held until both are known, so they differ): a fixed port
// inside the ephemeral range can be held by any outgoing connection (it was
// once, and postgres could not bind).
std::pair<int, int> free_ports() {
  int ports[2] = {0, 0};
  int fds[2] = {-1, -1};
  for (int i = 0; i < 2; ++i) {
    fds[i] = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fds[i] >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    REQUIRE(bind(fds[i], reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
    REQUIRE(getsockname(fds[i], reinterpret_cast<sockaddr*>(&address), &length) == 0);
    ports[i] = ntohs(address.sin_port);
  }
  for (int fd : fds)
    close(fd);
  return {ports[0], ports[1]};
}

// Steps every node until `done`, failing with the last reports after `timeout`.
void step_until(std::vector<Node*> nodes, const std::function<bool()>& done,
                std::chrono::seconds timeout = 90s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    for (Node* node : nodes)
      node->step();
    if (done()) return;
    std::this_thread::sleep_for(300ms);
  }
  std::string state;
  for (Node* node : nodes)
    state += fmt::format("\n  {}: role {} ready {} streaming {} error '{}'", node->identity.name,
                         node->report().role, node->ready(), node->report().streaming, node->report().error);
  FAIL("timed out; last reports:" << state);
}

// psql over TCP as `user`, the way an application connects.
process::ProcessResult sql_as(int port, const std::string& user, const std::string& password,
                              const std::string& sql, const std::string& database = "app") {
  process::ProcessOptions options;
  options.extra_env = {{"PGPASSWORD", password}, {"PGCONNECT_TIMEOUT", "5"}};
  std::string connection =
      fmt::format("host=127.0.0.1 port={} user={} {}", port, user,
                  database.find('=') == std::string::npos ? "dbname=" + database : database + " dbname=app");
  return process::run_process({"psql", "--no-psqlrc", "-At", "-v", "ON_ERROR_STOP=1", connection, "-c", sql},
                              options);
}

std::string app_sql(int port, const std::string& sql, const std::string& password = "app-password-1") {
  auto result = sql_as(port, "app", password, sql);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::string out = result.out;
  while (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

std::string superuser_sql(Node& node, const std::string& sql) {
  PostgresTools tools(node.identity);
  auto rows = tools.query(sql);
  return rows.empty() || rows[0].empty() ? "" : rows[0][0];
}

// db-1, the primary, and db-2, its replica, each the other's peer.
std::pair<Node&, Node&> primary_and_replica(Loopback& loopback, int port_a, int port_b) {
  Node& a = loopback.add("db-1", port_a, port_a, "db-1");
  Node& b = loopback.add("db-2", port_b, port_a, "db-1");
  a.environment.inputs.peers = {"db-2"};
  a.environment.inputs.addresses = {{"db-2", "127.0.0.1", port_b}};
  b.environment.inputs.peers = {"db-1"};
  b.environment.inputs.addresses = {{"db-1", "127.0.0.1", port_a}};
  return {a, b};
}

TEST_CASE("a primary and a replica: bootstrap, streaming, sync standbys, failover with rewind, passwords") {
  Loopback loopback;
  const auto [port_a, port_b] = free_ports();
  auto [a, b] = primary_and_replica(loopback, port_a, port_b);

  // The primary bootstraps (initdb, roles, app database) before the replica can clone it.
  step_until({&a}, [&] { return a.ready(); });
  CHECK(a.report().role == "primary");
  CHECK(superuser_sql(a, "SHOW data_checksums") == "on");
  CHECK(superuser_sql(a, "SELECT rolreplication FROM pg_roles WHERE rolname = 'streaming_replica'") == "t");
  CHECK(superuser_sql(a, "SELECT slot_name FROM pg_replication_slots") == "_opctl_db_2");
  app_sql(port_a, "CREATE TABLE t (id int primary key); INSERT INTO t SELECT generate_series(1, 1000)");

  // Wrong passwords are refused; replication connections only for the replication role.
  auto wrong = sql_as(port_a, "app", "wrong", "SELECT 1");
  CHECK(wrong.exit_code != 0);
  CHECK(wrong.err.find("password authentication failed") != std::string::npos);
  auto replication_as_app = sql_as(port_a, "app", "app-password-1", "IDENTIFY_SYSTEM", "replication=true");
  CHECK(replication_as_app.exit_code != 0);
  CHECK(replication_as_app.err.find("no pg_hba.conf entry for replication connection") != std::string::npos);

  step_until({&a, &b}, [&] { return a.ready() && b.ready(); });
  CHECK(b.report().role == "replica");
  CHECK(b.report().streaming);
  CHECK(superuser_sql(a, "SELECT application_name || ' ' || state FROM pg_stat_replication") ==
        "db-2 streaming");
  step_until({&a, &b}, [&] { return app_sql(port_b, "SELECT count(*) FROM t") == "1000"; });
  // A replica is read-only.
  CHECK(sql_as(port_b, "app", "app-password-1", "INSERT INTO t VALUES (0)").exit_code != 0);

  // Synchronous replication: ANY 1 of the other instances.
  a.environment.inputs.min_sync_replicas = 1;
  a.environment.inputs.max_sync_replicas = 1;
  step_until({&a, &b},
             [&] { return superuser_sql(a, "SHOW synchronous_standby_names") == "ANY 1 (\"db-2\")"; });
  app_sql(port_a, "INSERT INTO t SELECT generate_series(1001, 1100)");
  CHECK(superuser_sql(a, "SELECT sync_state FROM pg_stat_replication") == "quorum");

  // A new app password from the Secret: the new one works, the old one is refused.
  Credentials changed = credentials();
  changed.app_password = "app-password-2";
  a.environment.inputs.credentials = changed;
  b.environment.inputs.credentials = changed;
  step_until({&a, &b}, [&] { return sql_as(port_a, "app", "app-password-2", "SELECT 1").exit_code == 0; });
  CHECK(sql_as(port_a, "app", "app-password-1", "SELECT 1").exit_code != 0);

  // Failover: the primary's postmaster is killed; its manager gives up and
  // its container does not come back. Nobody renews its Lease: once it
  // expired, the replica (the furthest of those that answer) takes it and promotes.
  CHECK(loopback.lease().read()->holder == "db-1");
  kill(a.manager->server().pid(), SIGKILL);
  step_until(
      {&a}, [&] { return a.manager->fatal().has_value(); }, 30s);
  CHECK(a.manager->fatal()->find("killed by signal 9") != std::string::npos);
  a.stop_manager();
  std::string timeline_before = b.report().timeline;
  step_until({&b}, [&] { return b.ready() && b.report().role == "primary"; });
  CHECK(loopback.lease().read()->holder == "db-2");
  CHECK(loopback.lease().read()->transitions == 2);  // taken by db-1, then by db-2
  CHECK(std::stoi(b.report().timeline) == std::stoi(timeline_before) + 1);
  CHECK(app_sql(port_b, "SELECT count(*) FROM t", "app-password-2") == "1100");
  // The new primary writes on its own timeline before the old one comes back.
  app_sql(port_b, "INSERT INTO t SELECT generate_series(1101, 1200)", "app-password-2");

  // The old primary comes back (a new container) as a replica of the new one:
  // pg_rewind, then streaming, then it has what the new primary wrote.
  a.identity.primary_port = port_b;
  a.restart_manager();
  step_until({&a, &b}, [&] { return a.ready() && b.ready(); });
  CHECK(a.report().role == "replica");
  CHECK(a.report().timeline == b.report().timeline);
  step_until({&a, &b}, [&] { return app_sql(port_a, "SELECT count(*) FROM t", "app-password-2") == "1200"; });
  CHECK(superuser_sql(b, "SELECT application_name || ' ' || state FROM pg_stat_replication") ==
        "db-1 streaming");

  // The primary cut off from the API server stops writing before its Lease
  // expires as the replica times it: the replica never sees it expired while
  // the primary's PostgreSQL still runs.
  b.lease_link.cut_off = true;
  while (b.manager->server().running()) {
    b.step();
    a.keeper->observe();
    REQUIRE(a.keeper->expired_for().count() == 0);
    std::this_thread::sleep_for(200ms);
  }
  CHECK_FALSE(b.ready());
  CHECK(b.report().error.find("lost the primary Lease") != std::string::npos);
  b.lease_link.cut_off = false;

  // SIGTERM: a smart shutdown (fast after the timeout), nothing left running.
  a.manager->shut_down(5s, 30s);
  CHECK_FALSE(a.manager->server().running());
  CHECK(a.report().role == "stopped");
}

// What the servers started while it lives write to stderr (they inherit
// fd 2), kept in a file: PostgreSQL's log in these tests.
class CapturedServerLog {
 public:
  explicit CapturedServerLog(const fs::path& file) : file_(file) {
    saved_ = dup(2);
    int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    dup2(fd, 2);
    close(fd);
  }
  ~CapturedServerLog() {
    dup2(saved_, 2);
    close(saved_);
  }
  std::string text() const {
    std::ifstream in(file_);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
  }

 private:
  fs::path file_;
  int saved_ = -1;
};

TEST_CASE(
    "a password with a control character is refused by name, and no password reaches a log or a report") {
  Loopback loopback;
  const auto [port_a, unused] = free_ports();
  CapturedServerLog log(loopback.root() / "server.log");
  Node& a = loopback.add("db-1", port_a, port_a, "db-1");
  step_until({&a}, [&] { return a.ready(); });
  // Every statement logged, failed ones with their text: the password changes below must still leave no
  // trace.
  superuser_sql(a, "ALTER SYSTEM SET log_statement = 'all'");
  superuser_sql(a, "ALTER SYSTEM SET log_min_error_statement = 'error'");
  superuser_sql(a, "SELECT pg_reload_conf()");

  Credentials changed = credentials();
  changed.app_password =
      "pass-with-newline-at-the-end\n";  // as `kubectl create secret --from-file` writes it
  changed.replication_password = "new-replication-secret-2";
  a.environment.inputs.credentials = changed;
  for (int i = 0; i < 3; ++i)
    a.step();
  const std::string& error = a.report().error;
  CHECK(error.find("Secret db-app key password holds a control character") != std::string::npos);
  CHECK(error.find("pass-with-newline") == std::string::npos);
  // Nothing of the refused set is applied: the old passwords keep working, and the primary keeps serving.
  CHECK(a.ready());
  CHECK(app_sql(port_a, "SELECT current_user") == "app");
  CHECK(sql_as(port_a, "streaming_replica", "replication-secret", "IDENTIFY_SYSTEM", "replication=true")
            .exit_code == 0);

  // The Secret fixed: every password changes, and its new value works.
  changed.app_password = "app-password-with-'quotes'\\and\"more\"";
  a.environment.inputs.credentials = changed;
  step_until({&a}, [&] {
    return a.report().error.empty() && sql_as(port_a, "app", changed.app_password, "SELECT 1").exit_code == 0;
  });
  CHECK(sql_as(port_a, "app", "app-password-1", "SELECT 1").exit_code != 0);
  CHECK(sql_as(port_a, "streaming_replica", "new-replication-secret-2", "IDENTIFY_SYSTEM", "replication=true")
            .exit_code == 0);
  // Stored as SCRAM verifiers.
  CHECK(superuser_sql(
            a,
            "SELECT count(*) FROM pg_authid WHERE rolname IN ('app', 'postgres', 'streaming_replica') "
            "AND rolpassword LIKE 'SCRAM-SHA-256$%'") == "3");

  a.manager->shut_down(5s, 30s);
  std::string server_log = log.text();
  // The manager's statements are logged, but not the ones that set passwords, nor any password or verifier.
  CHECK(server_log.find("execute <unnamed>: SHOW synchronous_standby_names") != std::string::npos);
  for (const std::string& secret :
       {std::string("ALTER ROLE"), std::string("pass-with-newline"), std::string("new-replication-secret-2"),
        std::string("quotes"), std::string("super-secret"), std::string("SCRAM-SHA-256$4096:")}) {
    auto at = server_log.find(secret);
    INFO(secret << " in: "
                << (at == std::string::npos ? "" : server_log.substr(at > 300 ? at - 300 : 0, 600)));
    CHECK(at == std::string::npos);
  }
  for (const auto& report : a.environment.reports)
    CHECK(report.error.find("secret-2") == std::string::npos);
}

TEST_CASE("a primary whose data directory lost PG_VERSION refuses initdb and keeps every byte") {
  Loopback loopback;
  const auto [port_a, unused] = free_ports();
  Node& a = loopback.add("db-1", port_a, port_a, "db-1");
  step_until({&a}, [&] { return a.ready(); });
  app_sql(port_a, "CREATE TABLE t (id int primary key); INSERT INTO t SELECT generate_series(1, 1000)");
  superuser_sql(a, "CHECKPOINT");

  // The volume comes back without PG_VERSION (a remount, a move cut short) and postgres restarts.
  kill(a.manager->server().pid(), SIGKILL);
  step_until(
      {&a}, [&] { return a.manager->fatal().has_value(); }, 30s);
  fs::path pgdata = a.identity.pgdata;
  fs::rename(pgdata / "PG_VERSION", loopback.root() / "PG_VERSION.moved");
  auto files_before =
      std::distance(fs::recursive_directory_iterator(pgdata), fs::recursive_directory_iterator());

  // Whether the Cluster recorded a primary or not (its status lost), the volume's marker says it held data.
  for (bool primary_recorded : {true, false}) {
    a.environment.inputs.primary_recorded = primary_recorded;
    a.restart_manager();
    for (int i = 0; i < 3; ++i)
      a.step();
    INFO(a.report().error);
    CHECK(a.report().error.find("refusing to run initdb") != std::string::npos);
    CHECK(a.report().error.find(primary_recorded ? "status.currentPrimary is set"
                                                 : "held a database before") != std::string::npos);
    CHECK_FALSE(a.manager->server().running());
    CHECK_FALSE(a.ready());
    CHECK(std::distance(fs::recursive_directory_iterator(pgdata), fs::recursive_directory_iterator()) ==
          files_before);
  }

  // PG_VERSION put back: the same database serves again, every row there.
  fs::rename(loopback.root() / "PG_VERSION.moved", pgdata / "PG_VERSION");
  step_until({&a}, [&] { return a.ready(); });
  CHECK(app_sql(port_a, "SELECT count(*) FROM t") == "1000");
}

TEST_CASE(
    "minSyncReplicas 0: commits do not wait when no standby streams; a replica without PG_VERSION is set "
    "aside") {
  Loopback loopback;
  const auto [port_a, port_b] = free_ports();
  auto [a, b] = primary_and_replica(loopback, port_a, port_b);
  a.environment.inputs.min_sync_replicas = 0;
  a.environment.inputs.max_sync_replicas = 1;
  step_until({&a}, [&] { return a.ready(); });
  step_until({&a, &b}, [&] { return a.ready() && b.ready(); });
  step_until({&a, &b},
             [&] { return superuser_sql(a, "SHOW synchronous_standby_names") == "ANY 1 (\"db-2\")"; });
  app_sql(port_a, "CREATE TABLE t (id int primary key)");

  // The only standby goes: the primary turns asynchronous instead of holding every commit.
  b.manager->shut_down(5s, 30s);
  step_until(
      {&a}, [&] { return superuser_sql(a, "SHOW synchronous_standby_names").empty(); }, 60s);
  process::ProcessOptions bounded;
  bounded.timeout = 20s;
  bounded.extra_env = {{"PGPASSWORD", "app-password-1"}};
  auto insert = process::run_process(
      {"psql", "--no-psqlrc", "-At", "-v", "ON_ERROR_STOP=1",
       fmt::format("host=127.0.0.1 port={} user=app dbname=app", port_a), "-c", "INSERT INTO t VALUES (1)"},
      bounded);
  CHECK_FALSE(insert.timed_out);
  CHECK(insert.exit_code == 0);

  // The replica's volume comes back without PG_VERSION: it clones anew and keeps the old files aside.
  fs::path pgdata = b.identity.pgdata;
  fs::remove(pgdata / "PG_VERSION");
  b.restart_manager();
  step_until({&a, &b}, [&] { return a.ready() && b.ready(); });
  step_until({&a, &b},
             [&] { return superuser_sql(a, "SHOW synchronous_standby_names") == "ANY 1 (\"db-2\")"; });
  CHECK(app_sql(port_b, "SELECT count(*) FROM t") == "1");
  std::vector<fs::path> aside;
  for (const auto& entry : fs::directory_iterator(pgdata.parent_path()))
    if (entry.path().filename().string().starts_with("pgdata.incomplete-")) aside.push_back(entry.path());
  REQUIRE(aside.size() == 1);
  CHECK(fs::exists(aside[0] / "global" / "pg_control"));
}

// Fills more WAL segments than wal_keep_size keeps (128 MB: 8 of 16 MB) and
// checkpoints, so the primary removes what no slot holds.
void generate_wal(Node& primary, int port) {
  for (int i = 0; i < 12; ++i) {
    app_sql(port, "INSERT INTO t SELECT coalesce(max(id), 0) + 1 FROM t");
    superuser_sql(primary, "SELECT pg_switch_wal()");
  }
  superuser_sql(primary, "CHECKPOINT");
  superuser_sql(primary, "CHECKPOINT");
}

TEST_CASE(
    "a replica whose Pod is briefly gone keeps its slot; one whose WAL is gone anyway is set aside and "
    "cloned") {
  Loopback loopback;
  const auto [port_a, port_b] = free_ports();
  auto [a, b] = primary_and_replica(loopback, port_a, port_b);
  a.environment.inputs.members = {"db-1", "db-2"};
  b.options.stream_grace = 3s;
  b.options.rewinds_before_reclone = 2;
  b.restart_manager();
  step_until({&a}, [&] { return a.ready(); });
  app_sql(port_a, "CREATE TABLE t (id int primary key); INSERT INTO t VALUES (1)");
  step_until({&a, &b}, [&] { return a.ready() && b.ready(); });

  // db-2's Pod is gone (a rolling update deleted it), its volume stays: the slot stays, and with it the WAL.
  b.manager->shut_down(5s, 30s);
  a.environment.inputs.peers = {};
  for (int i = 0; i < 3; ++i)
    a.step();
  CHECK(superuser_sql(a, "SELECT slot_name FROM pg_replication_slots") == "_opctl_db_2");
  generate_wal(a, port_a);
  a.environment.inputs.peers = {"db-2"};
  b.restart_manager();
  step_until({&a, &b}, [&] { return b.ready() && app_sql(port_b, "SELECT count(*) FROM t") == "13"; });

  // The instance leaves the Cluster (no Pod, no volume): its slot goes. When it comes back all the same,
  // the WAL it needs is gone; pg_rewind has nothing to do, so after two rewinds it is set aside and cloned.
  b.manager->shut_down(5s, 30s);
  a.environment.inputs.peers = {};
  a.environment.inputs.members = {"db-1"};
  step_until(
      {&a}, [&] { return superuser_sql(a, "SELECT count(*) FROM pg_replication_slots") == "0"; }, 30s);
  generate_wal(a, port_a);
  a.environment.inputs.peers = {"db-2"};
  a.environment.inputs.members = {"db-1", "db-2"};
  b.restart_manager();
  step_until(
      {&a, &b}, [&] { return b.ready() && app_sql(port_b, "SELECT count(*) FROM t") == "25"; }, 180s);
  bool set_aside = false;
  for (const auto& entry : fs::directory_iterator(fs::path(b.identity.pgdata).parent_path()))
    set_aside = set_aside || entry.path().filename().string().starts_with("pgdata.unstreamable-");
  CHECK(set_aside);
}

TEST_CASE(
    "a WAL archive is marked with its Cluster, and a primary of another Cluster archives nothing into it") {
  Loopback loopback;
  const auto [port_a, port_b] = free_ports();
  fs::path archive = loopback.root() / "archive";
  Node& a = loopback.add("db-1", port_a, port_a, "db-1");
  a.identity.wal_archive_dir = archive.string();
  a.environment.inputs.cluster_uid = "uid-of-db";
  a.restart_manager();
  step_until({&a}, [&] { return a.ready(); });
  superuser_sql(a, "SELECT pg_switch_wal()");
  step_until({&a},
             [&] { return superuser_sql(a, "SELECT archived_count > 0 FROM pg_stat_archiver") == "t"; });
  auto owner = read_archive_owner(archive.string());
  REQUIRE(owner.has_value());
  CHECK(owner->cluster == "test/db");
  CHECK(owner->uid == "uid-of-db");
  CHECK(owner->system == superuser_sql(a, "SELECT system_identifier FROM pg_control_system()"));
  auto archived = [&] {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(archive))
      names.insert(entry.path().filename().string());
    return names;
  };
  const auto archived_by_db = archived();

  // Another Cluster (a restore that named the original's archive) runs a primary on the same archive.
  Node& b = loopback.add("other-1", port_b, port_b, "other-1", "other");
  b.identity.wal_archive_dir = archive.string();
  b.environment.inputs.cluster_uid = "uid-of-other";
  b.restart_manager();
  step_until({&b}, [&] {
    return b.report().error.find("belongs to Cluster test/db (uid uid-of-db") != std::string::npos;
  });
  CHECK(b.ready());  // it serves; only archiving stops
  superuser_sql(b, "SELECT pg_switch_wal()");
  step_until({&b}, [&] { return superuser_sql(b, "SELECT failed_count > 0 FROM pg_stat_archiver") == "t"; });
  CHECK(superuser_sql(b, "SELECT archived_count FROM pg_stat_archiver") == "0");
  // db's archive holds what db archived; nothing of the other's was copied or overwritten.
  auto now = archived();
  for (const auto& name : archived_by_db)
    CHECK(now.contains(name));
  CHECK(read_archive_owner(archive.string())->uid == "uid-of-db");
  for (int i = 0; i < 3; ++i)
    a.step();
  CHECK(a.report().error.empty());
}

TEST_CASE("a clone that fails on a full volume says so, naming the copies set aside before") {
  Loopback loopback;
  const auto [port_b, closed_port] = free_ports();  // nothing listens on closed_port: the clone fails
  Node& b = loopback.add("db-2", port_b, closed_port, "db-1");
  // A full volume cannot be made here (no mount as nobody): the free-space probe stands in for it.
  b.options.free_bytes = [](const std::string&) -> std::uintmax_t { return 1u << 20; };
  b.restart_manager();
  b.step();
  INFO(b.report().error);
  CHECK(b.report().error.find("the volume is full (1 MiB free)") == 0);
  CHECK(b.report().error.find("pg_basebackup from the primary failed") != std::string::npos);
  CHECK(b.report().error.find("\"pgdata.*\"") != std::string::npos);
  CHECK_FALSE(fs::exists(b.identity.pgdata + ".clone"));  // the partial clone is not kept
  // With room on the volume, only the clone's own failure is told.
  b.options.free_bytes = [](const std::string&) -> std::uintmax_t { return 10ull << 30; };
  b.restart_manager();
  b.step();
  CHECK(b.report().error.find("pg_basebackup from the primary failed") == 0);
  CHECK(b.report().error.find("volume is full") == std::string::npos);
}

TEST_CASE(
    "a switchover hands the Lease over: the old primary stops, the target has its last WAL, then promotes") {
  Loopback loopback;
  const auto [port_a, port_b] = free_ports();
  auto [a, b] = primary_and_replica(loopback, port_a, port_b);
  a.environment.inputs.min_sync_replicas = 1;
  a.environment.inputs.max_sync_replicas = 1;
  step_until({&a, &b}, [&] {
    return a.ready() && b.ready() && superuser_sql(a, "SHOW synchronous_standby_names") == "ANY 1 (\"db-2\")";
  });
  // The holder published the synchronous standbys on the Lease before they took effect.
  step_until({&a, &b}, [&] { return loopback.lease().read()->quorum == SyncQuorum{1, {"db-2"}}; });
  app_sql(port_a, "CREATE TABLE t (id int primary key); INSERT INTO t SELECT generate_series(1, 500)");

  // The pass names db-2 (status.targetPrimary) while db-1 is the recorded primary.
  a.environment.inputs.target_primary = "db-2";
  b.environment.inputs.target_primary = "db-2";
  step_until(
      {&a, &b}, [&] { return b.report().role == "primary" && b.ready(); }, 60s);
  CHECK_FALSE((a.manager->server().running() && a.report().role == "primary"));
  auto lease = loopback.lease().read();
  CHECK(lease->holder == "db-2");
  CHECK(lease->transitions == 2);  // taken by db-1, handed to db-2
  CHECK(app_sql(port_b, "SELECT count(*) FROM t") == "500");
  app_sql(port_b, "INSERT INTO t VALUES (501)");

  // The old primary follows the new one (its -rw now leads there).
  a.identity.primary_port = port_b;
  a.environment.inputs.current_primary = "db-2";
  b.environment.inputs.current_primary = "db-2";
  a.restart_manager();
  step_until({&a, &b}, [&] { return a.ready() && app_sql(port_a, "SELECT count(*) FROM t") == "501"; });
  CHECK(a.report().role == "replica");
}

TEST_CASE("the watchdog stops a primary whose manager stalls and cannot renew, before the Lease expires") {
  Loopback loopback;
  const auto [port_a, unused] = free_ports();
  Node& a = loopback.add("db-1", port_a, port_a, "db-1");
  step_until({&a}, [&] { return a.ready(); });
  app_sql(port_a, "CREATE TABLE t (id int)");
  std::atomic<bool> stop{false};
  WatchdogOptions options;
  options.run_dir = a.identity.run_dir;
  options.pgdata = a.identity.pgdata;
  options.stop = [&] { return stop.load(); };
  std::thread watchdog([&] { run_watchdog(options); });
  // The manager is never stepped again (as if stopped with SIGSTOP), and its renewals fail.
  a.lease_link.cut_off = true;
  auto cut_at = std::chrono::steady_clock::now();
  bool writable = true;
  while (writable && std::chrono::steady_clock::now() - cut_at < 20s) {
    writable = sql_as(port_a, "app", "app-password-1", "INSERT INTO t VALUES (1)").exit_code == 0;
    if (writable) std::this_thread::sleep_for(100ms);
  }
  auto stopped_after = std::chrono::steady_clock::now() - cut_at;
  stop = true;
  watchdog.join();
  CHECK_FALSE(writable);
  // The Lease is only expired for a candidate once it has been seen unchanged for its whole duration.
  CHECK(stopped_after < test_timings().duration);
  a.lease_link.cut_off = false;
}

TEST_CASE(
    "a fenced primary stops, keeps its Lease across a restart, and is the primary again when unfenced") {
  // Given db-1 the primary and db-2 streaming, fencing db-1 should stop its PostgreSQL (clean: db-2 has its
  // last WAL) and keep the Lease, even once its manager restarted and the Lease could have expired; db-2
  // never takes it, and unfencing brings db-1 back writable with every row.
  Loopback loopback;
  const auto [port_a, port_b] = free_ports();
  auto [a, b] = primary_and_replica(loopback, port_a, port_b);
  step_until({&a}, [&] { return a.ready(); });
  step_until({&a, &b}, [&] { return a.ready() && b.ready(); });
  app_sql(port_a, "CREATE TABLE t (id int primary key); INSERT INTO t SELECT generate_series(1, 100)");

  for (Node* node : {&a, &b})
    node->environment.inputs.fenced.names = {"db-1"};
  step_until({&a, &b}, [&] { return a.report().role == "fenced"; });
  CHECK_FALSE(a.ready());
  CHECK(sql_as(port_a, "app", "app-password-1", "SELECT 1").exit_code != 0);
  a.restart_manager();  // its container restarts: the new manager does not hold the Lease yet
  // ... and cannot take it back (the API server out of its reach): the Lease expires, and db-2 must still
  // not take it while the primary is fenced.
  a.lease_link.cut_off = true;
  auto restarted = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - restarted < test_timings().duration * 2) {
    a.step();
    b.step();
    REQUIRE(b.report().role == "replica");
    std::this_thread::sleep_for(300ms);
  }
  CHECK(a.report().role == "fenced");
  CHECK(loopback.lease().read()->holder == "db-1");
  a.lease_link.cut_off = false;
  step_until({&a, &b}, [&] { return a.keeper->holds(); });  // taken back while still fenced

  // db-2 steps first: it would win a race for an expired Lease against db-1 starting up.
  for (Node* node : {&a, &b})
    node->environment.inputs.fenced = {};
  step_until({&b, &a}, [&] { return a.ready() && b.ready(); });
  CHECK(a.report().role == "primary");
  app_sql(port_a, "INSERT INTO t VALUES (101)");
  CHECK(app_sql(port_a, "SELECT count(*) FROM t") == "101");
  CHECK(b.report().role == "replica");
}

TEST_CASE(
    "spec.postgresql reaches a running primary: a reload, a pending restart, a refused value, a decrease") {
  // Given a running primary, a changed parameter should apply by a reload, one of postmaster context should
  // be reported as pending a restart, a value PostgreSQL refuses should be reported and never ask for a
  // restart, and a lowered max_connections should restart PostgreSQL in place with the Lease held.
  Loopback loopback;
  const auto [port_a, unused] = free_ports();
  Node& a = loopback.add("db-1", port_a, port_a, "db-1");
  a.environment.inputs.configuration.parameters = {{"work_mem", "5MB"}};
  step_until({&a}, [&] { return a.ready(); });
  auto hash = [&] { return kinds::cluster::configuration_hash(a.environment.inputs.configuration); };
  CHECK(superuser_sql(a, "SHOW work_mem") == "5MB");
  CHECK(superuser_sql(a, "SHOW shared_buffers") == "64MB");  // opctl's default, in the same file
  CHECK(a.report().config_hash == hash());
  std::string started = superuser_sql(a, "SELECT pg_postmaster_start_time()");

  a.environment.inputs.configuration.parameters["work_mem"] = "7MB";
  step_until({&a}, [&] { return a.report().config_hash == hash(); });
  CHECK(superuser_sql(a, "SHOW work_mem") == "7MB");
  CHECK(a.report().pending_restart.empty());

  a.environment.inputs.configuration.parameters["max_connections"] = "120";
  step_until({&a}, [&] { return a.report().config_hash == hash(); });
  CHECK(a.report().pending_restart == "max_connections");
  CHECK(a.report().pending_decrease.empty());
  CHECK(superuser_sql(a, "SHOW max_connections") == "100");
  CHECK(superuser_sql(a, "SELECT pg_postmaster_start_time()") == started);

  a.environment.inputs.configuration.parameters["work_mem"] = "lots";
  step_until({&a}, [&] { return a.report().error.find("work_mem") != std::string::npos; });
  CHECK(a.report().error.find("spec.postgresql.parameters not applied") != std::string::npos);
  CHECK(a.report().pending_restart.empty());
  CHECK(a.report().config_hash != hash());

  // Lowered below what runs (100): restarted here, still the primary, with 80.
  a.environment.inputs.configuration.parameters = {{"max_connections", "80"}};
  step_until({&a}, [&] {
    return a.ready() && a.report().config_hash == hash() && superuser_sql(a, "SHOW max_connections") == "80";
  });
  CHECK(superuser_sql(a, "SELECT pg_postmaster_start_time()") != started);
  CHECK(a.report().role == "primary");
  CHECK(a.report().pending_restart.empty());
}

std::string managed_sql(Node& node, const std::string& database, const std::string& sql) {
  PostgresTools tools(node.identity);
  return tools.connect_local(database).value(sql);
}

TEST_CASE(
    "spec.managed on a running primary: roles with a password from a Secret, rotated; a database with an "
    "extension; absent with retain keeps it, with delete drops it; a role that owns objects stays") {
  // Given a running primary, the declared roles and database should appear as declared, a new Secret version
  // should replace the password, and ensure: absent should drop only what it is asked to.
  using kinds::cluster::ManagedReport;
  Loopback loopback;
  const auto [port_a, unused] = free_ports();
  CapturedServerLog log(loopback.root() / "server.log");
  Node& a = loopback.add("db-1", port_a, port_a, "db-1");
  step_until({&a}, [&] { return a.ready(); });
  // Every statement logged: the passwords set below must still leave no trace.
  superuser_sql(a, "ALTER SYSTEM SET log_statement = 'all'");
  superuser_sql(a, "SELECT pg_reload_conf()");
  model::Json declared = {{"roles",
                           {{{"name", "alice"},
                             {"login", true},
                             {"connectionLimit", 3},
                             {"inRoles", {"readers"}},
                             {"passwordSecret", {{"name", "alice-secret"}}}},
                            {{"name", "readers"}, {"comment", "read only"}}}},
                          {"databases",
                           {{{"name", "shop"},
                             {"owner", "alice"},
                             {"encoding", "UTF8"},
                             {"extensions", {{{"name", "pg_trgm"}}}}}}}};
  auto declare = [&] {
    a.environment.inputs.managed = kinds::cluster::managed_objects({{"managed", declared}});
  };
  auto report = [&] { return ManagedReport::parse(a.report().managed); };
  auto applied = [&] { return report().hash == kinds::cluster::managed_hash(a.environment.inputs.managed); };
  declare();
  a.environment.inputs.role_passwords = {{"alice-secret", {"uid/1", "alice", "alice-password-1", ""}}};
  step_until({&a}, applied);
  CHECK(report().roles.at("alice").state == "reconciled");
  CHECK(report().roles.at("readers").state == "reconciled");
  CHECK(report().databases.at("shop").state == "reconciled");
  CHECK(superuser_sql(a, "SELECT rolconnlimit FROM pg_roles WHERE rolname = 'alice'") == "3");
  CHECK(superuser_sql(a,
                      "SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = 'readers'") ==
        "read only");
  CHECK(superuser_sql(a,
                      "SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
                      "JOIN pg_roles u ON u.oid = m.member WHERE u.rolname = 'alice'") == "readers");
  CHECK(managed_sql(a, "shop", "SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'") == "pg_trgm");
  CHECK(superuser_sql(a, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'shop'") ==
        "alice");
  auto as_alice = [&](const std::string& password, const std::string& sql) {
    return sql_as(port_a, "alice", password, sql, "shop");
  };
  auto created = as_alice("alice-password-1", "CREATE TABLE kept (id int); INSERT INTO kept VALUES (1), (2)");
  INFO(created.err);
  REQUIRE(created.exit_code == 0);

  // A new version of the Secret: the new password works, the old one no longer.
  a.environment.inputs.role_passwords = {{"alice-secret", {"uid/2", "alice", "alice-password-2", ""}}};
  step_until({&a}, [&] { return as_alice("alice-password-2", "SELECT 1").exit_code == 0; });
  CHECK(as_alice("alice-password-1", "SELECT 1").exit_code != 0);
  // A Secret for another user is refused, and the password stays.
  a.environment.inputs.role_passwords = {{"alice-secret", {"uid/3", "bob", "alice-password-3", ""}}};
  step_until({&a}, [&] { return report().roles.at("alice").state == "cannotReconcile"; });
  CHECK(report().roles.at("alice").reason.find("username is not the role's name") != std::string::npos);
  CHECK(report().roles.at("alice").reason.find("alice-password") == std::string::npos);
  CHECK(as_alice("alice-password-2", "SELECT 1").exit_code == 0);
  a.environment.inputs.role_passwords = {{"alice-secret", {"uid/4", "alice", "alice-password-2", ""}}};

  // Altered: attributes and memberships follow the declaration exactly.
  declared["roles"][0]["connectionLimit"] = 5;
  declared["roles"][0]["inRoles"] = model::Json::array();
  declare();
  step_until({&a}, [&] { return applied() && report().roles.at("alice").state == "reconciled"; });
  CHECK(superuser_sql(a, "SELECT rolconnlimit FROM pg_roles WHERE rolname = 'alice'") == "5");
  CHECK(superuser_sql(a,
                      "SELECT count(*) FROM pg_auth_members m JOIN pg_roles u ON u.oid = m.member "
                      "WHERE u.rolname = 'alice'") == "0");

  // Absent with retain: no longer managed, the data stays. The owner, declared absent, cannot be dropped.
  declared["databases"][0]["ensure"] = "absent";
  declared["roles"][0]["ensure"] = "absent";
  declare();
  step_until({&a}, applied);
  CHECK(report().databases.at("shop").state == "retained");
  CHECK(report().roles.at("alice").state == "cannotReconcile");
  CHECK(report().roles.at("alice").reason.find("2BP01") != std::string::npos);
  CHECK(managed_sql(a, "shop", "SELECT count(*) FROM kept") == "2");

  // With delete it goes, and then its owner can go too (in the same run: databases before absent roles).
  declared["databases"][0]["reclaimPolicy"] = "delete";
  declare();
  step_until({&a}, applied);
  CHECK(report().databases.at("shop").state == "removed");
  CHECK(report().roles.at("alice").state == "removed");
  CHECK(superuser_sql(a, "SELECT count(*) FROM pg_database WHERE datname = 'shop'") == "0");
  CHECK(superuser_sql(a, "SELECT count(*) FROM pg_roles WHERE rolname = 'alice'") == "0");
  CHECK(a.ready());

  // A declaration the pass would refuse (written around it, with kubectl) is refused whole here too: the
  // superuser keeps its attributes.
  a.environment.inputs.managed = kinds::cluster::managed_objects(
      {{"managed", {{"roles", {{{"name", "readers"}}, {{"name", "postgres"}, {"superuser", false}}}}}}});
  step_until({&a}, applied);
  CHECK(report().roles.at("postgres").state == "cannotReconcile");
  CHECK(report().roles.at("readers").reason.find("role postgres") != std::string::npos);
  CHECK(superuser_sql(a, "SELECT rolsuper FROM pg_roles WHERE rolname = 'postgres'") == "t");

  a.manager->shut_down(5s, 30s);
  std::string server_log = log.text();
  CHECK(server_log.find("CREATE ROLE \"alice\"") != std::string::npos);  // statements are logged ...
  for (const std::string& secret : {std::string("alice-password-"), std::string("SCRAM-SHA-256$4096:")}) {
    auto at = server_log.find(secret);  // ... but no password, nor its verifier
    INFO(secret << " in: "
                << (at == std::string::npos ? "" : server_log.substr(at > 300 ? at - 300 : 0, 600)));
    CHECK(at == std::string::npos);
  }
}

// One scrape as the exporter makes it, parsed just enough: the value of the sample written exactly as
// `series`.
std::optional<std::string> scraped_value(const std::string& text, const std::string& series) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(series + " ")) return line.substr(series.size() + 1);
  return std::nullopt;
}

TEST_CASE("the exporter's scrape of a real primary and replica: defaults, a custom query, a broken one") {
  Loopback loopback;
  const auto [port_a, port_b] = free_ports();
  auto [a, b] = primary_and_replica(loopback, port_a, port_b);
  step_until({&a}, [&] { return a.ready(); });
  step_until({&a, &b}, [&] { return a.ready() && b.ready(); });
  app_sql(port_a, "CREATE TABLE orders (status text); INSERT INTO orders VALUES ('new'), ('new'), ('a\"b')");
  fs::path queries = loopback.root() / "queries";
  fs::create_directories(queries);
  std::ofstream(queries / "00-q.yaml") << R"yaml(
orders:
  query: "SELECT status, count(*) AS n FROM orders GROUP BY status"
  target_databases: [app]
  primary: true
  metrics:
    - status: {usage: LABEL}
    - n: {usage: GAUGE, description: orders}
broken:
  query: "SELECT 1/0 AS boom"
  metrics: [{boom: {usage: GAUGE}}]
writer:
  query: "CREATE TABLE sneaky (id int)"
  metrics: [{id: {usage: GAUGE}}]
)yaml";
  ScrapeErrors errors;
  std::string on_primary = collect_metrics(collector_options(a.identity, queries.string()), errors);
  INFO(on_primary);
  CHECK(scraped_value(on_primary, "opctl_collector_up") == "1");
  CHECK(scraped_value(on_primary, "opctl_pg_replication_in_recovery") == "0");
  CHECK(scraped_value(on_primary, "opctl_orders_n{status=\"new\",datname=\"app\"}") == "2");
  CHECK(scraped_value(on_primary, "opctl_orders_n{status=\"a\\\"b\",datname=\"app\"}") == "1");
  CHECK(scraped_value(on_primary, "opctl_collector_last_error{query=\"broken\"}") == "1");
  CHECK(scraped_value(on_primary, "opctl_collector_last_error{query=\"orders\"}") == "0");
  // Custom queries run read-only: a statement that writes fails and writes nothing.
  CHECK(scraped_value(on_primary, "opctl_collector_last_error{query=\"writer\"}") == "1");
  CHECK(superuser_sql(a, "SELECT count(*) FROM pg_class WHERE relname = 'sneaky'") == "0");
  CHECK(errors.at("broken").find("division by zero") != std::string::npos);
  CHECK(scraped_value(on_primary,
                      "opctl_pg_stat_replication_streaming{application_name=\"db-2\","
                      "client_addr=\"127.0.0.1\"}") == "1");
  CHECK(on_primary.find("opctl_pg_database_size_bytes{datname=\"app\"} ") != std::string::npos);
  CHECK(on_primary.find("# TYPE opctl_pg_stat_archiver_archived_count counter\n") != std::string::npos);

  ScrapeErrors replica_errors;
  std::string on_replica = collect_metrics(collector_options(b.identity, queries.string()), replica_errors);
  INFO(on_replica);
  CHECK(scraped_value(on_replica, "opctl_pg_replication_in_recovery") == "1");
  CHECK(scraped_value(on_replica, "opctl_pg_replication_is_wal_receiver_up") == "1");
  CHECK(scraped_value(on_replica, "opctl_pg_replication_lag").has_value());
  CHECK(on_replica.find("opctl_orders_n") == std::string::npos);  // primary: true

  // PostgreSQL stopped: the scrape still answers, up 0.
  b.stop_manager();
  ScrapeErrors down_errors;
  std::string down = collect_metrics(collector_options(b.identity, queries.string()), down_errors);
  CHECK(scraped_value(down, "opctl_collector_up") == "0");
  CHECK(scraped_value(down, "opctl_collector_last_error{query=\"orders\"}") == "1");
}

TEST_CASE("a scrape blocked in PostgreSQL holds up neither the manager's steps nor another scrape") {
  // Given a custom query waiting for an advisory lock the test holds (no statement timeout), the manager
  // should keep stepping and a second scrape should answer, counting the blocked backend as waiting;
  // released, the first scrape should finish with its metric.
  Loopback loopback;
  const int port_a = free_ports().first;
  Node& a = loopback.add("db-1", port_a, port_a, "db-1");
  step_until({&a}, [&] { return a.ready(); });
  fs::path queries = loopback.root() / "blocking-queries";
  fs::create_directories(queries);
  std::ofstream(queries / "q.yaml")
      << "waits:\n  query: \"SELECT 1 AS held FROM (SELECT pg_advisory_lock(4242)) AS l\"\n"
         "  metrics: [{held: {usage: GAUGE}}]\n";
  CollectorOptions options = collector_options(a.identity, queries.string());
  options.connection.statement_timeout = 0ms;
  PgConnection holder = PostgresTools(a.identity).connect_local();
  holder.query("SELECT pg_advisory_lock(4242)");

  std::string blocked_text;
  std::atomic<bool> finished{false};
  std::thread scrape([&] {
    ScrapeErrors errors;
    blocked_text = collect_metrics(options, errors);
    finished = true;
  });
  auto waiting = [&] {
    return superuser_sql(a,
                         "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'opctl-metrics' "
                         "AND wait_event_type = 'Lock'") == "1";
  };
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!waiting() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(100ms);
  bool blocked = waiting();
  if (blocked) {
    for (int i = 0; i < 3; ++i)
      a.step();
    CHECK(a.ready());
    CHECK_FALSE(finished);  // still waiting for the lock
    CollectorOptions other = collector_options(a.identity, "");
    ScrapeErrors errors;
    std::string second = collect_metrics(other, errors);
    CHECK(scraped_value(second, "opctl_collector_up") == "1");
    CHECK(scraped_value(second, "opctl_backends_waiting_total") == "1");
  }
  holder.query("SELECT pg_advisory_unlock(4242)");
  scrape.join();
  REQUIRE(blocked);
  CHECK(scraped_value(blocked_text, "opctl_waits_held") == "1");
  CHECK(scraped_value(blocked_text, "opctl_collector_last_error{query=\"waits\"}") == "0");
}

// A CA and a server certificate for "localhost", valid around now.
struct LoopbackTls {
  kinds::cluster::KeyPair ca;
  TlsMaterial material;
};

LoopbackTls loopback_tls(const kinds::cluster::KeyPair* existing_ca = nullptr) {
  using namespace kinds::cluster;
  auto now = std::chrono::system_clock::now();
  CertificateRequest request{"loopback CA", {}, CertificateUsage::ca, now - 5min, now + 24h};
  LoopbackTls out;
  out.ca = existing_ca ? *existing_ca : make_certificate_authority(request);
  request.common_name = "localhost";
  request.dns_names = {"localhost"};
  request.usage = CertificateUsage::server;
  KeyPair server = issue_certificate(out.ca, request);
  out.material = {server.certificate, server.key, out.ca.certificate};
  return out;
}

// The serial of the certificate the server at `port` presents, as `openssl s_client` sees it.
std::string served_serial(int port) {
  auto result = process::run_process(
      {"sh", "-c",
       fmt::format("openssl s_client -starttls postgres -connect 127.0.0.1:{} </dev/null 2>/dev/null | "
                   "openssl x509 -noout -serial",
                   port)},
      {});
  std::string out = result.out;
  while (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out.rfind("serial=", 0) == 0 ? out.substr(7) : "";
}

TEST_CASE("TLS: taken on by a reload, replicas verify the primary, plain TCP refused, certificates rotated") {
  Loopback loopback;
  const auto [port_a, port_b] = free_ports();
  auto [a, b] = primary_and_replica(loopback, port_a, port_b);
  a.identity.primary_host = "localhost";
  b.identity.primary_host = "localhost";
  a.restart_manager();
  b.restart_manager();
  step_until({&a, &b}, [&] { return a.ready() && b.ready(); });
  CHECK(superuser_sql(a, "SHOW ssl") == "off");
  std::string started = superuser_sql(a, "SELECT pg_postmaster_start_time()");

  // The Secret appears (a Cluster from before TLS): both serve it after a reload, not a restart.
  LoopbackTls tls = loopback_tls();
  a.environment.inputs.tls = tls.material;
  b.environment.inputs.tls = tls.material;
  step_until({&a, &b},
             [&] { return superuser_sql(a, "SHOW ssl") == "on" && superuser_sql(b, "SHOW ssl") == "on"; });
  CHECK(superuser_sql(a, "SELECT pg_postmaster_start_time()") == started);
  CHECK((fs::status(fs::path(tls_key_path(a.identity))).permissions() & fs::perms::group_all) ==
        fs::perms::none);
  std::string ca_file = (loopback.root() / "ca.crt").string();
  std::ofstream(ca_file) << tls.ca.certificate;
  auto verified =
      sql_as(port_a, "app", "app-password-1", "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
             fmt::format("host=localhost sslmode=verify-full sslrootcert={}", ca_file));
  INFO(verified.err);
  CHECK(verified.exit_code == 0);
  CHECK(verified.out == "t\n");

  // A replica that starts again verifies the primary: verify-full against the CA, over TLS.
  b.restart_manager();
  step_until({&a, &b}, [&] { return a.ready() && b.ready() && b.report().streaming; });
  CHECK(superuser_sql(b, "SHOW primary_conninfo").find("sslmode=verify-full") != std::string::npos);
  CHECK(superuser_sql(a, "SELECT s.ssl FROM pg_stat_replication r JOIN pg_stat_ssl s USING (pid)") == "t");

  // requireSSL: a plain TCP connection is refused, TLS still works, replication still streams.
  a.environment.inputs.configuration.require_ssl = true;
  b.environment.inputs.configuration.require_ssl = true;
  step_until({&a, &b}, [&] {
    return sql_as(port_a, "app", "app-password-1", "SELECT 1", "sslmode=disable").exit_code != 0;
  });
  CHECK(sql_as(port_a, "app", "app-password-1", "SELECT 1", "sslmode=disable").err.find("no encryption") !=
        std::string::npos);
  CHECK(sql_as(port_a, "app", "app-password-1", "SELECT 1", "sslmode=require").exit_code == 0);

  // A renewed certificate from the same CA: served after a reload, the primary never restarts.
  std::string first_serial = served_serial(port_a);
  CHECK(first_serial == kinds::cluster::read_certificate(tls.material.certificate)->serial);
  LoopbackTls renewed = loopback_tls(&tls.ca);
  a.environment.inputs.tls = renewed.material;
  b.environment.inputs.tls = renewed.material;
  std::string renewed_serial = kinds::cluster::read_certificate(renewed.material.certificate)->serial;
  step_until({&a, &b}, [&] {
    return served_serial(port_a) == renewed_serial && served_serial(port_b) == renewed_serial;
  });
  CHECK(superuser_sql(a, "SELECT pg_postmaster_start_time()") == started);
  CHECK(a.report().role == "primary");
  step_until({&a, &b}, [&] { return b.report().streaming; });

  // A key that does not fit is reported and not served: the last good certificate stays.
  TlsMaterial broken = renewed.material;
  broken.key = tls.material.key;
  a.environment.inputs.tls = broken;
  step_until({&a}, [&] { return a.report().error.find("not the key") != std::string::npos; });
  CHECK(a.report().error.find("BEGIN") == std::string::npos);
  CHECK(served_serial(port_a) == renewed_serial);
}

}  // namespace
}  // namespace opctl::instance
