// The verbs opctl uses, built as requests so callers can send many at once
// (HTTP/2, bounded concurrency), and decoded into results that are data.
#pragma once

#include <functional>
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

struct PatchOptions {
  std::string field_manager = k_field_manager;
  bool dry_run = false;
};

struct DeleteOptions {
  std::string propagation_policy = "Background";  // Background, Foreground, Orphan
  std::string precondition_uid;                   // delete only this incarnation (409 Conflict otherwise)
  bool dry_run = false;
  std::string precondition_resource_version;  // delete only this version (409 Conflict otherwise)
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int page_size = 500;  // <= 0: one request without a limit
  int max_pages = 0;    // > 0: stop after this many pages (the outcome keeps the continue token)
  // Called with each item as soon as it is parsed (apiVersion and kind set):
  // it may cut the item down, and returns false to drop it. A page then never
  // stands whole as a tree, only the kept part of each item. Unset: keep all.
  std::function<bool(model::Json& item)> keep_item;
};

// One collection to read: a resource in a namespace ("" = all namespaces).
struct ListTarget {
  ResourceInfo info;
  std::string namespace_name;
  ListOptions options;
  std::string continue_from;  // a token a list stopped at by max_pages: go on from there
};

// What reading one target gave: its items, or the error that ended it.
struct ListOutcome {
  ApiStatus status;
  std::vector<model::Json> items;
  std::size_t parsed = 0;      // items the server sent, those keep_item dropped included
  std::string continue_token;  // where the list stopped when max_pages ended it early
  bool ok() const { return status.ok(); }
  bool complete() const { return continue_token.empty(); }
};

struct ApiResult {
  ApiStatus status;
  model::Json object;  // the response body on success
  bool ok() const { return status.ok(); }
};

class ApiClient {
 public:
  ApiClient(HttpTransport& transport, RestMapper& mapper) : transport_(transport), mapper_(mapper) {}

  // How many writes go out between two questions to the write gate.
  static constexpr std::size_t k_write_chunk = 32;

  RestMapper& mapper() { return mapper_; }

  // Called before every batch that holds a request other than GET (and
  // before every k_write_chunk requests of a large one); it throws to stop
  // the rest unsent. The reconcile pass checks and renews its Lease here.
  void set_write_gate(std::function<void()> gate) { write_gate_ = std::move(gate); }

  HttpRequest get_request(const ResourceInfo& info, const std::string& namespace_name,
                          const std::string& name) const;
  HttpRequest apply_request(const ResourceInfo& info, const model::Object& object,
                            const ApplyOptions& options) const;
  HttpRequest create_request(const ResourceInfo& info, const model::Object& object, bool dry_run) const;
  HttpRequest delete_request(const ResourceInfo& info, const std::string& namespace_name,
                             const std::string& name, const DeleteOptions& options) const;
  // Server-side apply of the status subresource (custom kinds write status this way).
  HttpRequest apply_status_request(const ResourceInfo& info, const model::Object& object,
                                   const ApplyOptions& options) const;
  // JSON merge patch (RFC 7386) of an object, and of its status subresource.
  HttpRequest patch_request(const ResourceInfo& info, const std::string& namespace_name,
                            const std::string& name, const model::Json& patch,
                            const PatchOptions& options = {}) const;
  HttpRequest patch_status_request(const ResourceInfo& info, const std::string& namespace_name,
                                   const std::string& name, const model::Json& patch,
                                   const PatchOptions& options = {}) const;

  // Sends the requests concurrently and decodes each response.
  std::vector<ApiResult> execute(const std::vector<HttpRequest>& requests);
  ApiResult execute(const HttpRequest& request) {
    return std::move(execute(std::vector<HttpRequest>{request}).front());
  }

  // How many collections list_all reads at once: the pages in flight are
  // held as text until parsed, so the window bounds memory as well.
  static constexpr std::size_t k_list_window = 16;

  // Every object of a resource in a namespace ("" = all namespaces), with
  // apiVersion and kind set, following `continue` tokens. Throws ApiError on
  // failure.
  std::vector<model::Json> list(const ResourceInfo& info, const std::string& namespace_name,
                                const ListOptions& options = {});
  // Reads many collections concurrently (k_list_window at a time, each page
  // after the one before it); one outcome per target, in order. A target's
  // failure is its outcome's status and stops no other target.
  std::vector<ListOutcome> list_all(const std::vector<ListTarget>& targets);

 private:
  HttpTransport& transport_;
  RestMapper& mapper_;
  std::vector<ApiResult> send(const std::vector<HttpRequest>& requests);

  std::function<void()> write_gate_;
};

}  // namespace opctl::kube
