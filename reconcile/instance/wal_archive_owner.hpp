// Whose WAL archive a directory is. The first primary to archive into it
// marks it with its Cluster (namespace/name and uid) and database system
// identifier; a primary of another Cluster (a restore that names the
// original's archive, two Clusters given one Backup) is refused instead of
// failing on the other's segments forever or mixing its own among them.
#pragma once

#include <optional>
#include <string>

namespace opctl::instance {

struct ArchiveOwner {
  std::string cluster;  // namespace/name
  std::string uid;      // the Cluster's metadata.uid; empty when unknown
  std::string system;   // the database system identifier when it claimed the archive

  // The same Cluster: by uid when both know it (a Cluster deleted and created
  // again under its name is another), else by name. Not by system identifier:
  // a restored Cluster keeps its source's, and a major upgrade changes it.
  bool same_cluster(const ArchiveOwner& other) const;
  std::string describe() const;
};

std::string archive_owner_path(const std::string& directory);
// The owner recorded in `directory`; nullopt when there is none yet.
std::optional<ArchiveOwner> read_archive_owner(const std::string& directory);
// Records `owner` (written aside, then renamed into place).
void write_archive_owner(const std::string& directory, const ArchiveOwner& owner);

}  // namespace opctl::instance
