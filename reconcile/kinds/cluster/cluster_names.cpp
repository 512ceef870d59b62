#include "kinds/cluster/cluster_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace opctl::kinds::cluster {

std::string instance_name(const std::string& cluster, int serial) {
  return fmt::format("{}-{}", cluster, serial);
}

std::optional<int> serial_of(const std::string& cluster, const std::string& instance) {
  if (instance.size() <= cluster.size() + 1 || instance.compare(0, cluster.size(), cluster) != 0 ||
      instance[cluster.size()] != '-')
    return std::nullopt;
  std::string digits = instance.substr(cluster.size() + 1);
  if (digits.size() > 9 || digits.front() == '0') return std::nullopt;
  for (char c : digits)
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
  return std::stoi(digits);
}

std::string rw_service(const std::string& cluster) {
  return cluster + "-rw";
}
std::string ro_service(const std::string& cluster) {
  return cluster + "-ro";
}
std::string r_service(const std::string& cluster) {
  return cluster + "-r";
}
std::string app_secret(const std::string& cluster) {
  return cluster + "-app";
}
std::string superuser_secret(const std::string& cluster) {
  return cluster + "-superuser";
}
std::string replication_secret(const std::string& cluster) {
  return cluster + "-replication";
}
std::string ca_secret(const std::string& cluster) {
  return cluster + "-ca";
}
std::string server_secret(const std::string& cluster) {
  return cluster + "-server";
}
std::string client_secret(const std::string& cluster, const std::string& user) {
  std::string name = cluster + "-client-" + user;
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}
std::string restore_job(const std::string& cluster, int serial) {
  return fmt::format("{}-{}-restore", cluster, serial);
}
std::string major_upgrade_job(const std::string& cluster, int to_major) {
  return fmt::format("{}-upgrade-{}", cluster, to_major);
}
std::string final_backup_job(const std::string& cluster) {
  return cluster + "-final-backup";
}
std::string primary_pdb(const std::string& cluster) {
  return cluster + "-primary";
}
std::string replica_pdb(const std::string& cluster) {
  return cluster;
}

std::string primary_lease(const std::string& cluster) {
  return cluster + "-primary";
}

}  // namespace opctl::kinds::cluster
