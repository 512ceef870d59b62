#include "kube/discovery_cache.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "model/redaction.hpp"

namespace opctl::kube {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_file_name = "aggregated.json";

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

std::string unique_suffix() {
  std::random_device random;
  return std::to_string(::getpid()) + "." + std::to_string(random());
}

}  // namespace

std::string default_discovery_cache_dir() {
  if (std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return (fs::path(xdg) / "opctl" / "discovery").string();
  if (std::string home = environment("HOME"); !home.empty())
    return (fs::path(home) / ".cache" / "opctl" / "discovery").string();
  return "";
}

std::string server_cache_key(const std::string& server) {
  std::size_t scheme = server.find("://");
  std::string rest = scheme == std::string::npos ? server : server.substr(scheme + 3);
  while (!rest.empty() && rest.back() == '/')
    rest.pop_back();
  std::string key;
  for (char c : rest)
    key += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
  return key;
}

fs::path DiscoveryCache::file() const {
  return fs::path(options_.directory) / server_cache_key(model::redact_credentials(options_.server)) /
         k_file_name;
}

std::optional<DiscoveryDocuments> DiscoveryCache::read() const {
  if (!enabled()) return std::nullopt;
  std::error_code error;
  auto written = fs::last_write_time(file(), error);
  if (error) return std::nullopt;
  auto age = fs::file_time_type::clock::now() - written;
  if (age < fs::file_time_type::duration::zero() || age > options_.ttl) return std::nullopt;
  std::ifstream in(file(), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  model::Json entry = model::Json::parse(text.str(), nullptr, false);
  // The key is lossy ("a:1" and "a_1" meet), so the entry names its server.
  auto is_discovery = [&](const char* key) {
    return entry.contains(key) && entry[key].is_object() &&
           entry[key].value("kind", "") == "APIGroupDiscoveryList";
  };
  if (!entry.is_object() || entry.value("server", "") != model::redact_credentials(options_.server) ||
      !is_discovery("api") || !is_discovery("apis"))
    return std::nullopt;
  return DiscoveryDocuments{entry["api"], entry["apis"]};
}

void DiscoveryCache::write(const DiscoveryDocuments& documents) const {
  if (!enabled()) return;
  std::error_code error;
  fs::path target = file();
  fs::create_directories(target.parent_path(), error);
  if (error) return;
  fs::path temporary = target;
  temporary += ".tmp." + unique_suffix();
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << model::Json{{"server", model::redact_credentials(options_.server)},
                       {"api", documents.core},
                       {"apis", documents.groups}}
               .dump();
    if (!out.flush()) {
      fs::remove(temporary, error);
      return;
    }
  }
  fs::rename(temporary, target, error);
  if (error) fs::remove(temporary, error);
}

}  // namespace opctl::kube
