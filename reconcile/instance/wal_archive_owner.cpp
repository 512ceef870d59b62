#include "instance/wal_archive_owner.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "instance/instance_error.hpp"

namespace opctl::instance {

bool ArchiveOwner::same_cluster(const ArchiveOwner& other) const {
  if (!uid.empty() && !other.uid.empty()) return uid == other.uid;
  return cluster == other.cluster;
}

std::string ArchiveOwner::describe() const {
  return fmt::format("Cluster {} (uid {}, database system {})", cluster, uid.empty() ? "unknown" : uid,
                     system.empty() ? "unknown" : system);
}

std::string archive_owner_path(const std::string& directory) {
  return directory + "/.opctl-archive-owner";
}

std::optional<ArchiveOwner> read_archive_owner(const std::string& directory) {
  std::ifstream in(archive_owner_path(directory));
  if (!in) return std::nullopt;
  ArchiveOwner owner;
  std::string key;
  std::string value;
  while (in >> key >> value) {
    if (key == "cluster") owner.cluster = value;
    if (key == "uid") owner.uid = value == "-" ? "" : value;
    if (key == "system") owner.system = value;
  }
  return owner;
}

void write_archive_owner(const std::string& directory, const ArchiveOwner& owner) {
  std::string path = archive_owner_path(directory);
  std::string temporary = path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << "cluster " << owner.cluster << "\nuid " << (owner.uid.empty() ? "-" : owner.uid) << "\nsystem "
        << owner.system << "\n";
    if (!out) throw InstanceError("cannot write " + temporary);
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace opctl::instance
