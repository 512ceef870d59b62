// Base backups to a Cluster's object store, taken by the primary's manager.
// barman-cloud-backup copies "a local PostgreSQL instance" (it reads PGDATA's
// files), so it runs here, beside PostgreSQL, and never in the backup Job:
// the Job's Pod is the request (label opctl.io/backup-request=<cluster>), the
// primary runs one backup per request, oldest first and one at a time, and
// reports each outcome on its own Pod (annotation opctl.io/backup-requests),
// which the Job reads (`opctl instance backup`).
//
// The backup is a child of this process (PID 1 of the container): the main
// loop reaps every child and hands its exit to reaped(), so nothing here waits.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opctl::instance {

// A backup Job's Pod asking for a backup.
struct BackupRequest {
  std::string pod;
  std::string uid;
  bool operator==(const BackupRequest&) const = default;
};

// What became of one request: waiting (cannot start yet: `message` says why),
// running, completed or failed (`message`: the tool's last words).
struct BackupOutcome {
  std::string pod;
  std::string phase;
  std::string message;
  std::chrono::steady_clock::time_point waiting_since{};
};

class StoreBackups {
 public:
  // How long a request may wait for a usable archive before it fails.
  static constexpr std::chrono::seconds k_wait_limit{120};

  // `command`: barman-cloud-backup, its options, the destination and the
  // server name (kinds::store_backup_argv); empty: no object store.
  StoreBackups(std::vector<std::string> command, std::string log_path);
  StoreBackups(const StoreBackups&) = delete;
  StoreBackups& operator=(const StoreBackups&) = delete;

  bool enabled() const { return !command_.empty(); }
  bool running() const { return pid_ > 0; }

  // One step on the primary: forgets requests no longer listed, and starts
  // the oldest unserved one when none runs and `blocked` is empty (else the
  // waiting ones say why, and fail after k_wait_limit). `connection` are the
  // options that reach the local server (-h socket dir, -p port, -U user).
  void step(const std::vector<BackupRequest>& requests, const std::vector<std::string>& connection,
            const std::string& blocked, std::chrono::steady_clock::time_point now);
  // A child the main loop reaped: true when it was the running backup.
  bool reaped(pid_t pid, int wait_status);

  // The outcomes of the listed requests, as compact JSON ({uid: {pod, phase,
  // message}}); empty when there are none.
  std::string report() const;

 private:
  void start(const BackupRequest& request, const std::vector<std::string>& connection);
  std::string last_words() const;

  std::vector<std::string> command_;
  std::string log_path_;
  pid_t pid_ = -1;
  std::string running_uid_;
  std::map<std::string, BackupOutcome> outcomes_;  // by request uid, for the listed requests
};

}  // namespace opctl::instance
