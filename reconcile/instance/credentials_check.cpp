#include "instance/credentials_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "kinds/cluster/cluster_names.hpp"

namespace opctl::instance {
namespace {

namespace names = kinds::cluster;

bool has_control_character(const std::string& value) {
  return std::any_of(value.begin(), value.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

}  // namespace

std::optional<std::string> credentials_problem(const Credentials& credentials, const std::string& cluster) {
  const std::vector<std::pair<const std::string*, std::string>> fields = {
      {&credentials.superuser_password, names::superuser_secret(cluster) + " key password"},
      {&credentials.app_user, names::app_secret(cluster) + " key username"},
      {&credentials.app_password, names::app_secret(cluster) + " key password"},
      {&credentials.app_database, names::app_secret(cluster) + " key dbname"},
      {&credentials.replication_password, names::replication_secret(cluster) + " key password"},
  };
  for (const auto& [value, where] : fields)
    if (has_control_character(*value))
      return fmt::format(
          "Secret {} holds a control character (a trailing newline?); it is not used until it is "
          "written without one (kubectl create secret generic --from-literal, or printf without \\n)",
          where);
  return std::nullopt;
}

std::string without_passwords(std::string text, const Credentials& credentials) {
  for (const std::string* password :
       {&credentials.superuser_password, &credentials.app_password, &credentials.replication_password}) {
    if (password->empty()) continue;
    const std::string mark = "<redacted>";
    for (auto at = text.find(*password); at != std::string::npos; at = text.find(*password, at + mark.size()))
      text.replace(at, password->size(), mark);
  }
  return text;
}

}  // namespace opctl::instance
