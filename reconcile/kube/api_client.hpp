// The verbs opctl uses, built as requests so callers can send many at once
// (HTTP/2, bounded concurrency), and decoded into results that are data.
#pragma once

#include <string>
#include <vector>

#include "kube/api_error.hpp"
#include "kube/http_transport.hpp"
#include "kube/rest_mapper.hpp"
#include "model/object.hpp"

namespace opctl::kube {

inline constexpr const char* k_field_manager = "opctl";

struct ApplyOptions {
  std::string field_manager = k_field_manager;
  bool force = false;
  bool dry_run = false;
};

struct DeleteOptions {
  std::string propagation_policy = "Background";  // Background, Foreground, Orphan
  std::string precondition_uid;
  bool dry_run = false;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int page_size = 500;
};

struct ApiResult {
  ApiStatus status;
  model::Json object;  // the response body on success
  bool ok() const { return status.ok(); }
};

class ApiClient {
 public:
  ApiClient(HttpTransport& transport, RestMapper& mapper) : transport_(transport), mapper_(mapper) {}

  RestMapper& mapper() { return mapper_; }

  HttpRequest get_request(const ResourceInfo& info, const std::string& namespace_name, const std::string& name) const;
  HttpRequest apply_request(const ResourceInfo& info, const model::Object& object, const ApplyOptions& options) const;
  HttpRequest create_request(const ResourceInfo& info, const model::Object& object, bool dry_run) const;
  HttpRequest delete_request(const ResourceInfo& info, const std::string& namespace_name, const std::string& name,
                             const DeleteOptions& options) const;
  // Server-side apply of the status subresource (custom kinds write status this way).
  HttpRequest apply_status_request(const ResourceInfo& info, const model::Object& object,
                                   const ApplyOptions& options) const;

  // Sends the requests concurrently and decodes each response.
  std::vector<ApiResult> execute(const std::vector<HttpRequest>& requests);
  ApiResult execute(const HttpRequest& request) { return execute(std::vector<HttpRequest>{request}).front(); }

  // Every object of a resource in a namespace ("" = all namespaces), following
  // `continue` tokens. Throws ApiError on failure.
  std::vector<model::Json> list(const ResourceInfo& info, const std::string& namespace_name,
                                const ListOptions& options = {});

 private:
  HttpTransport& transport_;
  RestMapper& mapper_;
};

}  // namespace opctl::kube
