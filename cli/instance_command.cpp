// opctl instance run: the instance manager, PID 1 of every Cluster instance
// container (the image from deploy/postgresql.Dockerfile). It runs
// PostgreSQL in the role the reconcile pass gives the instance; the logic is
// in reconcile/instance/, this file is the process around it: flags and
// environment, signals (SIGTERM shuts PostgreSQL down smart, then fast),
// reaping orphans, the readiness file and one log line per change.
//
// The exporter (reconcile/instance/metrics_*.hpp) serves /metrics on port
// 9187 from a thread of its own; it never stops the manager: a port it cannot
// listen on is logged, and the instance runs without it.
//
// opctl instance ready: the readiness probe, exit 0 while the instance
// serves its role.
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iostream>
#include <memory>

#include "cluster_connection.hpp"
#include "commands.hpp"
#include "config/run_config.hpp"
#include "exit_codes.hpp"
#include "instance/instance_manager.hpp"
#include "instance/kube_environment.hpp"
#include "instance/lease_keeper.hpp"
#include "instance/metrics_collector.hpp"
#include "instance/metrics_server.hpp"
#include "instance/primary_lease.hpp"
#include "instance/readiness_file.hpp"
#include "instance/store_backup_job.hpp"
#include "instance/write_deadline.hpp"
#include "kinds/cluster/cluster_monitoring.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "model/object.hpp"

namespace opctl::cli {
namespace {

using namespace std::chrono_literals;

std::chrono::milliseconds duration_flag(const char* flag, const std::string& text) {
  auto parsed = config::parse_duration(text);
  if (!parsed || parsed->count() <= 0)
    throw InvalidInputError({Problem{
        "", 0, flag, fmt::format("'{}': must be a duration above 0 such as 500ms, 10s or 2m", text)}});
  return *parsed;
}

struct InstanceOptions {
  instance::InstanceIdentity identity;
  std::string smart_shutdown_timeout = "10s";
  std::string fast_shutdown_timeout = "1500s";
  int metrics_port = kinds::cluster::k_metrics_port;
  std::string metrics_queries_dir;
  std::string wal_archive_command;  // JSON arrays, as the Pod template writes them
  std::string wal_archive_check;
  std::string backup_command;
};

struct BackupJobOptions {
  instance::StoreBackupJob job;
  std::string list_command;
  std::string delete_command;
  int keep = 0;
  long max_age_minutes = 0;
};

struct FetchOptions {
  instance::StoreFetch fetch;
  std::string list_command;
  std::string restore_command;
};

// A command line the Pod template gives as a JSON array of strings.
std::vector<std::string> argv_flag(const char* flag, const std::string& text) {
  if (text.empty()) return {};
  auto parsed = model::Json::parse(text, nullptr, false);
  std::vector<std::string> argv;
  if (parsed.is_array() && !parsed.empty())
    for (const auto& word : parsed)
      if (word.is_string()) argv.push_back(word.get<std::string>());
  if (argv.empty() || argv.size() != parsed.size())
    throw InvalidInputError({Problem{"", 0, flag, "must be a JSON array of strings, the program first"}});
  return argv;
}

std::string describe(const instance::InstanceReport& report, bool ready) {
  std::string line = fmt::format("role {}{}", report.role, ready ? ", ready" : ", not ready");
  if (report.role == "primary") line += fmt::format(", timeline {}", report.timeline);
  if (report.role == "replica")
    line +=
        fmt::format(", timeline {}, {}", report.timeline, report.streaming ? "streaming" : "not streaming");
  if (!report.error.empty()) line += ": " + report.error;
  return line;
}

// The watchdog runs as a process of its own (the same binary), so that a
// manager that hangs or is stopped (SIGSTOP, a stuck system call) cannot keep
// PostgreSQL writable past the write deadline. Started again if it exits.
pid_t start_watchdog(const instance::InstanceIdentity& identity) {
  std::vector<std::string> arguments = {"opctl",          "instance", "watchdog",     "--run-dir",
                                        identity.run_dir, "--pgdata", identity.pgdata};
  std::vector<char*> argv;
  for (auto& argument : arguments)
    argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0) return 0;
  return pid;
}

bool process_alive(pid_t pid) {
  return pid > 0 && kill(pid, 0) == 0;
}

int run_watchdog_process(const InstanceOptions& options) {
  // The manager is PID 1 of the container: when it goes, so does everything;
  // outside a container its death must end the watchdog too.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  instance::WatchdogOptions watchdog;
  watchdog.run_dir = options.identity.run_dir;
  watchdog.pgdata = options.identity.pgdata;
  watchdog.log = [](const std::string& line) { std::cerr << "opctl instance watchdog: " << line << "\n"; };
  instance::run_watchdog(watchdog);
  return k_exit_ok;
}

// The exporter, or nothing when it is turned off or cannot listen. Errors of
// a scrape are logged when they change (a broken custom query once, not at
// every scrape); the handler runs on the server's thread only.
std::unique_ptr<instance::MetricsServer> start_exporter(const InstanceOptions& options) {
  if (options.metrics_port == 0) return nullptr;
  const auto& name = options.identity.name;
  auto collector = instance::collector_options(options.identity, options.metrics_queries_dir);
  auto handler = [collector, name, logged = instance::ScrapeErrors()]() mutable {
    instance::ScrapeErrors errors;
    std::string text = instance::collect_metrics(collector, errors);
    for (const auto& [query, error] : errors)
      if (logged[query] != error)
        std::cerr << fmt::format("opctl instance {}: metrics: {}: {}\n", name, query, error);
    logged = std::move(errors);
    return text;
  };
  instance::MetricsServerOptions server;
  server.port = options.metrics_port;
  try {
    auto exporter = std::make_unique<instance::MetricsServer>(server, std::move(handler));
    std::cerr << fmt::format("opctl instance {}: metrics on port {}\n", name, exporter->port());
    return exporter;
  } catch (const Error& error) {
    std::cerr << fmt::format("opctl instance {}: no metrics: {}\n", name, error.what());
    return nullptr;
  }
}

// `opctl instance backup`: the termination message is what the Backup's status reads, on success the
// artifact report, on failure the reason.
int run_backup_job(BackupJobOptions& options) {
  auto& job = options.job;
  job.list_command = argv_flag("--list-command", options.list_command);
  job.delete_command = argv_flag("--delete-command", options.delete_command);
  if (options.keep > 0) job.keep = options.keep;
  if (options.max_age_minutes > 0) job.max_age = std::chrono::minutes(options.max_age_minutes);
  if (job.namespace_name.empty() || job.cluster.empty() || job.pod_name.empty() || job.pod_uid.empty())
    throw InvalidInputError({Problem{"", 0, "NAMESPACE, CLUSTER_NAME, POD_NAME, POD_UID",
                                     "opctl instance backup needs its Pod's name and uid, its Cluster and "
                                     "namespace (the Backup's Job template sets them)"}});
  CommonOptions connection_options;
  ClusterConnection connection = connect(connection_options);
  auto write_termination = [](const std::string& text) {
    std::ofstream out("/dev/termination-log");
    if (out) out << text;
  };
  try {
    model::Json message = instance::run_store_backup_job(*connection.client, job, std::cerr);
    write_termination(message.dump());
    std::cout << message.dump() << "\n";
    return k_exit_ok;
  } catch (const ClusterError& error) {
    write_termination(error.what());
    throw;
  }
}

int run_instance(InstanceOptions& options) {
  auto smart_timeout = duration_flag("--smart-shutdown-timeout", options.smart_shutdown_timeout);
  auto fast_timeout = duration_flag("--fast-shutdown-timeout", options.fast_shutdown_timeout);
  options.identity.wal_archive_command = argv_flag("--wal-archive-command", options.wal_archive_command);
  options.identity.wal_archive_check = argv_flag("--wal-archive-check", options.wal_archive_check);
  options.identity.backup_command = argv_flag("--backup-command", options.backup_command);
  if (options.identity.wal_archive_command.empty() != options.identity.wal_archive_check.empty())
    throw InvalidInputError({Problem{"", 0, "--wal-archive-command, --wal-archive-check",
                                     "an object-store WAL archive needs both"}});
  const auto& identity = options.identity;
  if (identity.name.empty() || identity.cluster.empty() || identity.namespace_name.empty())
    throw InvalidInputError(
        {Problem{"", 0, "POD_NAME, CLUSTER_NAME, NAMESPACE",
                 "opctl instance run needs the Pod's name, its Cluster and namespace (the "
                 "Cluster's Pod template sets them)"}});
  // Signals are waited for, not handled: no state is shared with a handler.
  sigset_t signals;
  sigemptyset(&signals);
  for (int number : {SIGTERM, SIGINT, SIGCHLD})
    sigaddset(&signals, number);
  sigprocmask(SIG_BLOCK, &signals, nullptr);
  // After the mask: its thread inherits it, so the signals still come to this loop.
  auto exporter = start_exporter(options);

  // Kubeconfig and context from the environment: in a Pod, the ServiceAccount.
  CommonOptions connection_options;
  ClusterConnection connection = connect(connection_options);
  instance::KubeEnvironment environment(*connection.client, identity);
  // The Lease has a transport of its own: short timeouts and no retries, so
  // a renewal is never queued behind the manager's other requests.
  kube::TransportOptions lease_transport = transport_options(connection_options);
  lease_transport.max_attempts = 1;
  lease_transport.request_timeout = 2000ms;
  lease_transport.connect_timeout = 1000ms;
  lease_transport.read_stall_timeout = 2000ms;
  instance::KubeLeaseStore lease_store(kube::make_curl_transport(connection.config, lease_transport),
                                       identity.namespace_name,
                                       kinds::cluster::primary_lease(identity.cluster));
  instance::WriteDeadline deadline(identity.run_dir);
  // Left by the container before this one (the run directory outlives it): this one holds nothing yet.
  deadline.clear();
  pid_t watchdog = start_watchdog(identity);
  instance::LeaseKeeper lease(lease_store, identity.name, deadline);
  instance::InstanceManager manager(identity, environment, lease);
  instance::publish_readiness(identity.run_dir, false, "");
  std::cerr << fmt::format("opctl instance {}: managing {} (cluster {}, namespace {})\n", identity.name,
                           identity.pgdata, identity.cluster, identity.namespace_name);
  std::string last_line;
  while (true) {
    manager.step();
    instance::publish_readiness(identity.run_dir, manager.ready(), manager.last_report().role);
    std::string line = describe(manager.last_report(), manager.ready());
    if (line != last_line) std::cerr << fmt::format("opctl instance {}: {}\n", identity.name, line);
    last_line = line;
    if (manager.fatal()) {
      std::cerr << fmt::format("opctl instance {}: {}; exiting so the container restarts\n", identity.name,
                               *manager.fatal());
      return k_exit_cluster_error;
    }
    if (!process_alive(watchdog)) watchdog = start_watchdog(identity);
    timespec period{1, 0};
    int received = manager.being_deleted() ? SIGTERM : sigtimedwait(&signals, nullptr, &period);
    if (received == SIGCHLD) manager.reap_children();
    // A Pod deleted while the kubelet was restarting this container may never
    // send it SIGTERM (the kill went to the old one): its deletion is the signal.
    if (received == SIGTERM || received == SIGINT) {
      std::cerr << fmt::format("opctl instance {}: stopping PostgreSQL (smart, then fast after {}s)\n",
                               identity.name, smart_timeout.count());
      instance::publish_readiness(identity.run_dir, false, "");
      manager.shut_down(smart_timeout, fast_timeout);
      std::cerr << fmt::format("opctl instance {}: stopped\n", identity.name);
      return k_exit_ok;
    }
  }
}

}  // namespace

void register_instance(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<InstanceOptions>();
  auto* command = app.add_subcommand("instance", "The PostgreSQL instance manager of a Cluster's instances");
  command->require_subcommand(1);
  command->footer(
      "Runs inside the instance image (deploy/postgresql.Dockerfile); see opctl-cluster-kind(5).");

  auto* run =
      command->add_subcommand("run", "Run PostgreSQL in this instance's role (PID 1 of the container)");
  auto& identity = options->identity;
  identity.run_dir = "/run/opctl";
  identity.pgdata = "/var/lib/postgresql/data/pgdata";
  run->add_option("--pgdata", identity.pgdata, "The data directory")
      ->envname("PGDATA")
      ->capture_default_str();
  run->add_option("--port", identity.port, "The port PostgreSQL listens on")
      ->envname("PGPORT")
      ->capture_default_str();
  run->add_option("--pod-name", identity.name, "This instance's Pod name")->envname("POD_NAME");
  run->add_option("--cluster", identity.cluster, "The Cluster's name")->envname("CLUSTER_NAME");
  run->add_option("--namespace", identity.namespace_name, "The Cluster's namespace")->envname("NAMESPACE");
  run->add_option("--primary-service", identity.primary_host, "Where the primary answers (the -rw Service)")
      ->envname("OPCTL_PRIMARY_SERVICE");
  run->add_option("--run-dir", identity.run_dir,
                  "Socket, pg_hba.conf, passfile and readiness file (not copied by pg_rewind)")
      ->capture_default_str();
  run->add_option("--wal-archive-dir", identity.wal_archive_dir,
                  "Where the primary archives each finished WAL segment (empty: no archiving)")
      ->envname("OPCTL_WAL_ARCHIVE_DIR");
  run->add_option("--wal-archive-command", options->wal_archive_command,
                  "Or archive to an object store: barman-cloud-wal-archive and its options as a JSON array, "
                  "the segment's path appended (the Cluster's Pod template sets it from its Backup)")
      ->envname("OPCTL_WAL_ARCHIVE_COMMAND");
  run->add_option(
         "--wal-archive-check", options->wal_archive_check,
         "With --wal-archive-command: barman-cloud-check-wal-archive and its options as a JSON array, "
         "run before the first segment so that only this Cluster's archive is written")
      ->envname("OPCTL_WAL_ARCHIVE_CHECK");
  run->add_option(
         "--backup-command", options->backup_command,
         "With --wal-archive-command: barman-cloud-backup and its options as a JSON array; the primary "
         "runs it for each backup Job that asks (its Pod labelled opctl.io/backup-request=<cluster>)")
      ->envname("OPCTL_BACKUP_COMMAND");
  run->add_option(
         "--smart-shutdown-timeout", options->smart_shutdown_timeout,
         "On SIGTERM, how long a smart shutdown may wait for clients before a fast one (500ms, 10s, 2m; more "
         "than 0)")
      ->envname("OPCTL_SMART_SHUTDOWN_TIMEOUT")
      ->capture_default_str();
  run->add_option("--fast-shutdown-timeout", options->fast_shutdown_timeout,
                  "Then how long the fast shutdown may take before an immediate one (more than 0)")
      ->capture_default_str();
  run->add_option("--metrics-port", options->metrics_port,
                  "The port the exporter serves /metrics and /healthz on, every address (0: no exporter)")
      ->envname("OPCTL_METRICS_PORT")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  run->add_option("--metrics-queries-dir", options->metrics_queries_dir,
                  "Where the custom metrics queries are (files in postgres_exporter's YAML format, read at "
                  "every scrape; empty: none)")
      ->envname("OPCTL_METRICS_QUERIES_DIR");
  run->callback([&action, options] { action = [options] { return run_instance(*options); }; });

  auto* watchdog = command->add_subcommand(
      "watchdog", "Stop PostgreSQL once the primary's write deadline passed (started by `instance run`)");
  watchdog->add_option("--run-dir", identity.run_dir, "The manager's run directory")->capture_default_str();
  watchdog->add_option("--pgdata", identity.pgdata, "The data directory")
      ->envname("PGDATA")
      ->capture_default_str();
  watchdog->callback([&action, options] { action = [options] { return run_watchdog_process(*options); }; });

  auto backup_options = std::make_shared<BackupJobOptions>();
  auto* backup = command->add_subcommand(
      "backup", "Ask the Cluster's primary for a base backup to the object store, then apply the retention");
  backup->footer(
      "The backup Job of a Backup whose target is an object store runs it; see opctl-backup-kind(5).");
  backup->add_option("--namespace", backup_options->job.namespace_name, "The Cluster's namespace")
      ->envname("NAMESPACE");
  backup->add_option("--cluster", backup_options->job.cluster, "The Cluster")->envname("CLUSTER_NAME");
  backup->add_option("--pod-name", backup_options->job.pod_name, "This Job's Pod: the backup's name")
      ->envname("POD_NAME");
  backup->add_option("--pod-uid", backup_options->job.pod_uid, "This Job's Pod's uid: the request")
      ->envname("POD_UID");
  backup
      ->add_option("--list-command", backup_options->list_command,
                   "barman-cloud-backup-list and its options as a JSON array")
      ->envname("OPCTL_BACKUP_LIST");
  backup
      ->add_option("--delete-command", backup_options->delete_command,
                   "barman-cloud-backup-delete and its options as a JSON array")
      ->envname("OPCTL_BACKUP_DELETE");
  backup->add_option("--keep", backup_options->keep, "Keep the newest N completed backups")
      ->envname("BACKUP_KEEP");
  backup
      ->add_option("--max-age-minutes", backup_options->max_age_minutes,
                   "Keep no backup that finished longer ago")
      ->envname("BACKUP_MAX_AGE_MINUTES");
  backup->callback(
      [&action, backup_options] { action = [backup_options] { return run_backup_job(*backup_options); }; });

  auto fetch_options = std::make_shared<FetchOptions>();
  auto* fetch = command->add_subcommand(
      "fetch-backup",
      "Fetch a Backup's base backup from the object store into PGDATA and print its id (the restore Job's "
      "first step)");
  fetch->footer(
      "A Cluster restored from a Backup whose target is an object store runs it; see "
      "opctl-cluster-kind(5).");
  fetch->add_option("--backup", fetch_options->fetch.backup_name, "The Backup")->envname("BACKUP_NAME");
  fetch
      ->add_option("--list-command", fetch_options->list_command,
                   "barman-cloud-backup-list and its options as a JSON array")
      ->envname("OPCTL_BACKUP_LIST");
  fetch
      ->add_option("--restore-command", fetch_options->restore_command,
                   "barman-cloud-restore and its options as a JSON array (the id and PGDATA are added)")
      ->envname("OPCTL_RESTORE_COMMAND");
  fetch
      ->add_option("--target-time", fetch_options->fetch.target_time,
                   "Take the newest base backup that ended before this time (RFC 3339)")
      ->envname("TARGET_TIME");
  fetch
      ->add_option("--target-lsn", fetch_options->fetch.target_lsn,
                   "Or the newest that ended before this LSN")
      ->envname("TARGET_LSN");
  fetch->add_option("--pgdata", fetch_options->fetch.pgdata, "Where to put it")->envname("PGDATA");
  fetch->callback([&action, fetch_options] {
    action = [fetch_options] {
      auto& fetch_args = *fetch_options;
      fetch_args.fetch.list_command = argv_flag("--list-command", fetch_args.list_command);
      fetch_args.fetch.restore_command = argv_flag("--restore-command", fetch_args.restore_command);
      if (fetch_args.fetch.pgdata.empty())
        throw InvalidInputError({Problem{"", 0, "--pgdata", "where to fetch the backup to is required"}});
      std::cout << instance::fetch_store_backup(fetch_args.fetch, std::cerr) << "\n";
      return k_exit_ok;
    };
  });

  auto* ready =
      command->add_subcommand("ready", "Exit 0 while this instance serves its role (readiness probe)");
  ready->add_option("--run-dir", identity.run_dir, "The manager's run directory")->capture_default_str();
  ready->callback([&action, options] {
    action = [options] { return instance::readiness_published(options->identity.run_dir) ? k_exit_ok : 1; };
  });
}

}  // namespace opctl::cli
