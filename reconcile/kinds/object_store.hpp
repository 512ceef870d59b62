// A Backup's object-store target (spec.target.objectStore): an S3-compatible
// bucket that Barman Cloud (barman-cli-cloud, in the instance image) writes
// base backups and the WAL archive to. Shared by the Backup kind, which
// writes and prunes backups there, and the Cluster kind, whose instances
// archive WAL there and restore from it, so both build the tools' command
// lines and environment the same way.
//
// The store's keys never appear in a command line or an object opctl writes:
// the containers read them from the Secret through secretKeyRef environment
// variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), which boto3, under
// Barman Cloud, reads itself.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::kinds {

// One key of a Secret in the object's namespace.
struct SecretKeyRef {
  std::string name;
  std::string key;
  bool operator==(const SecretKeyRef&) const = default;
};

struct ObjectStore {
  std::string destination_path;             // s3://bucket[/path]
  std::string endpoint_url;                 // empty: AWS's endpoint for the region
  std::string region;                       // empty: boto3's default
  std::optional<SecretKeyRef> endpoint_ca;  // a PEM bundle that signs the endpoint's certificate
  SecretKeyRef access_key_id;
  SecretKeyRef secret_access_key;
  std::string data_compression;  // gzip | bzip2 | snappy; empty: none
  std::string data_encryption;   // AES256 | aws:kms; empty: none
  std::string wal_compression;
  std::string wal_encryption;
  bool operator==(const ObjectStore&) const = default;
};

// Where a container finds the store's CA bundle (endpointCA), mounted from its Secret.
inline constexpr const char* k_object_store_ca_mount = "/etc/opctl/object-store-ca";
inline constexpr const char* k_object_store_ca_file = "ca.crt";
inline constexpr const char* k_object_store_ca_volume = "object-store-ca";

// spec.target.objectStore of a Backup as written (checked by the Backup's
// schema); nullopt when the target is a volume.
std::optional<ObjectStore> read_object_store(const model::Json& backup_spec);

// The bucket of an s3:// destination path ("s3://b/x/y" -> "b").
std::string bucket_of(const std::string& destination_path);

// The environment every container that runs a barman-cloud tool needs: the
// keys through secretKeyRef, the region, and AWS_CA_BUNDLE when endpointCA is
// set. A JSON array of EnvVar.
model::Json object_store_env(const ObjectStore& store);
// The volume and mount of endpointCA's Secret key (as k_object_store_ca_file);
// nullopt without endpointCA.
std::optional<model::Json> object_store_ca_volume(const ObjectStore& store);
std::optional<model::Json> object_store_ca_mount(const ObjectStore& store);

// What a barman-cloud tool is used for: its compression and encryption
// options come from spec.target.objectStore.data or .wal.
enum class StoreUse { data, wal, read };

// The options every barman-cloud tool takes for this store (provider,
// endpoint) and, for data and wal, the compression and encryption flags.
std::vector<std::string> barman_cloud_options(const ObjectStore& store, StoreUse use);

// The command a primary archives each WAL segment with, less the segment's
// path (archive_command appends %p): barman-cloud-wal-archive with the wal
// options, the destination and the server name (the Cluster's name, the
// folder under the destination path).
std::vector<std::string> wal_archive_argv(const ObjectStore& store, const std::string& server_name);
// barman-cloud-check-wal-archive: fails when the archive already holds WAL
// (of another Cluster, or of this one's source when it was restored), so a
// Cluster never archives into an archive that is not its own.
std::vector<std::string> wal_archive_check_argv(const ObjectStore& store, const std::string& server_name);
// barman-cloud-backup-list <options> --format json DESTINATION SERVER.
std::vector<std::string> backup_list_argv(const ObjectStore& store, const std::string& server_name);
// barman-cloud-restore's argv, less the backup id and the directory.
std::vector<std::string> store_restore_argv(const ObjectStore& store, const std::string& server_name);
// A POSIX shell word in a command PostgreSQL runs (archive_command,
// restore_command): single-quoted, and a literal % written %% so that
// PostgreSQL's %p/%f expansion leaves it alone.
std::string command_word(const std::string& text);
// A restore_command for PostgreSQL: barman-cloud-wal-restore fetching %f into
// %p from SERVER's archive, each word quoted for the shell, a literal %
// written %%.
std::string wal_restore_command(const ObjectStore& store, const std::string& server_name);

// barman-cloud-backup with the data options, the destination and the server
// name; the primary's manager adds the backup's name and the connection.
std::vector<std::string> store_backup_argv(const ObjectStore& store, const std::string& server_name);

// The Pod of a base backup to the store (a Backup's Job, a Cluster's final
// backup): `opctl instance backup` in the Cluster's image, as its postgres
// user, under the Backup's ServiceAccount (store_backup_service_account),
// labelled as a request to the Cluster's primary (store_backups.hpp).
struct StoreJobInput {
  std::string backup_name;
  std::string cluster;
  std::string image;
  int uid = 26;
  int gid = 26;
  std::optional<int> keep;
  std::optional<std::chrono::seconds> max_age;
};
// The Job's spec.template: metadata.labels and spec.
model::Json store_backup_pod_template(const ObjectStore& store, const StoreJobInput& input);
// <backup>-backup: may only read Pods, and the Backup creates it with its Role and RoleBinding.
std::string store_backup_service_account(const std::string& backup_name);

}  // namespace opctl::kinds
