// Where OpenAPI v3 documents come from: the cluster (GET /openapi/v3, then
// one document per group-version, cached on disk by the server's content
// hash) or a directory of documents saved with `kubectl get --raw`.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "kube/http_transport.hpp"
#include "model/object.hpp"
#include "validate/openapi_document.hpp"

namespace opctl::validate {

struct SchemaSet {
  std::map<std::string, std::shared_ptr<const OpenApiDocument>> documents;  // by group-version ("apps/v1")
  std::map<std::string, std::string> missing;  // group-version -> why the source has no document for it
  // group-version -> why its document could not be read: it kept changing
  // (its group's CRDs changed) for as long as the source waited for it.
  std::map<std::string, std::string> unsettled;
};

class SchemaSource {
 public:
  virtual ~SchemaSource() = default;
  // The documents of these group-versions ("v1", "apps/v1").
  virtual SchemaSet load(const std::set<std::string>& group_versions) = 0;
};

// Reads DIR/api__v1.json, DIR/apis__apps__v1.json, ... (schema_file_name).
// A file that is not an OpenAPI v3 document is invalid input.
class DirectorySchemaSource : public SchemaSource {
 public:
  // Throws opctl::Error (invalid_input) when `directory` is not a directory.
  explicit DirectorySchemaSource(std::string directory);
  SchemaSet load(const std::set<std::string>& group_versions) override;

 private:
  std::string directory_;
};

// Asks the API server. The index (GET /openapi/v3) gives each group-version's
// URL with a hash of its content, so a cached document is reused exactly as
// long as the server serves the same one.
class ClusterSchemaSource : public SchemaSource {
 public:
  // Waits between reads of a document that keeps moving; tests pass one that only records.
  using Pause = std::function<void(std::chrono::milliseconds)>;
  // `cache_dir` empty: no disk cache.
  ClusterSchemaSource(kube::HttpTransport& transport, std::string cache_dir, Pause pause = sleep_for)
      : transport_(transport), cache_dir_(std::move(cache_dir)), pause_(std::move(pause)) {}
  // GET /openapi/v3; throws kube::ApiError (reason unreachable when no
  // response came), so a caller can tell an absent cluster from a broken one.
  void load_index();
  // A document still moving after the last wait is `unsettled`, not an
  // error: validation may check its custom resources against their CRDs.
  SchemaSet load(const std::set<std::string>& group_versions) override;

 private:
  std::shared_ptr<const OpenApiDocument> from_cache(const std::string& group_version,
                                                    const std::string& hash) const;
  // Fills `set` from the cache or the server; returns the group-versions whose
  // URL in the index has gone stale (the server redirected it).
  std::set<std::string> fetch(const std::set<std::string>& group_versions, SchemaSet& set);
  void store(const std::string& group_version, const std::string& hash, const std::string& body) const;

  static void sleep_for(std::chrono::milliseconds duration);

  kube::HttpTransport& transport_;
  std::string cache_dir_;
  Pause pause_;
  model::Json index_;
};

// The hash parameter of a serverRelativeURL ("/openapi/v3/api/v1?hash=AB12"); empty when none.
std::string url_hash(const std::string& server_relative_url);

}  // namespace opctl::validate
