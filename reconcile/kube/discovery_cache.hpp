// Aggregated discovery on disk, one directory per API server (like kubectl's
// ~/.kube/cache/discovery/<host_port>), so a short run does not download
// every group and resource again.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "model/object.hpp"

namespace opctl::kube {

// Ten minutes, not kubectl's six hours: opctl changes CRDs itself, and a kind
// that disappeared or changed scope is only noticed when the cache expires
// (a kind that appeared is found at once: a miss refreshes discovery).
inline constexpr std::chrono::seconds k_default_discovery_ttl{600};

struct DiscoveryCacheOptions {
  std::string directory;  // the cache root; empty: no disk cache
  std::string server;     // ClusterConfig::server: entries are per server
  std::chrono::seconds ttl = k_default_discovery_ttl;
};

// Both roots' aggregated discovery documents (APIGroupDiscoveryList).
struct DiscoveryDocuments {
  model::Json core;    // GET /api
  model::Json groups;  // GET /apis
};

// $XDG_CACHE_HOME/opctl/discovery, else $HOME/.cache/opctl/discovery; empty
// when neither is set.
std::string default_discovery_cache_dir();

class DiscoveryCache {
 public:
  explicit DiscoveryCache(DiscoveryCacheOptions options) : options_(std::move(options)) {}

  bool enabled() const { return !options_.directory.empty() && !options_.server.empty(); }
  // The documents when the entry exists, is younger than the TTL and was
  // written for this server; nullopt otherwise (a broken file is a miss).
  std::optional<DiscoveryDocuments> read() const;
  // Best effort and atomic (a temporary file renamed into place): a cache
  // that cannot be written only costs a download next time.
  void write(const DiscoveryDocuments& documents) const;
  // DIR/<host_port>/aggregated.json
  std::filesystem::path file() const;

 private:
  DiscoveryCacheOptions options_;
};

// "https://10.0.0.1:6443/prefix" -> "10.0.0.1_6443_prefix": the server's
// host, port and path with every character outside [A-Za-z0-9.-] as '_'.
std::string server_cache_key(const std::string& server);

}  // namespace opctl::kube
