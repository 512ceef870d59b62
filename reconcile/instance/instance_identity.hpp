// Who and where an instance is: the inputs the instance manager needs before
// it can ask anyone anything. In a Pod they come from the environment the
// Cluster's Pod template sets (see opctl-cluster-kind(5)); the loopback tests
// build them by hand, one per data directory and port.
#pragma once

#include <string>
#include <vector>

namespace opctl::instance {

struct InstanceIdentity {
  std::string cluster;  // the Cluster's name
  std::string name;     // this instance: the Pod's name, "<cluster>-<serial>"
  std::string namespace_name;
  std::string pgdata;  // the data directory
  int port = 5432;
  std::string run_dir;       // socket, pg_hba.conf, passfile and readiness file; never copied by pg_rewind
  std::string primary_host;  // where the primary answers: the -rw Service
  int primary_port = 5432;
  std::string listen_addresses = "*";
  // Where the primary copies each finished WAL segment (archive_command),
  // for point-in-time recovery; empty: no archiving.
  std::string wal_archive_dir;
  // Or the object store's: barman-cloud-wal-archive's argv, less the segment's path
  // (kinds::wal_archive_argv), and the check that the archive is this Cluster's to write.
  std::vector<std::string> wal_archive_command;
  std::vector<std::string> wal_archive_check;
  // barman-cloud-backup's argv for base backups to that store (store_backups.hpp); empty: none.
  std::vector<std::string> backup_command;
};

}  // namespace opctl::instance
