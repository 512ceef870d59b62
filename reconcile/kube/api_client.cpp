#include "kube/api_client.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace opctl::kube {
namespace {

// "?a=1" or "&a=1", depending on whether the path has a query yet.
void add_query(std::string& path, const std::string& parameter) {
  path += (path.find('?') == std::string::npos ? "?" : "&") + parameter;
}

// Puts "/status" between the object path and its query.
std::string status_path(const std::string& path) {
  auto query = path.find('?');
  if (query == std::string::npos) return path + "/status";
  return path.substr(0, query) + "/status" + path.substr(query);
}

// A list page's continue token has expired (410): the list starts over.
bool continue_expired(const ApiResult& result, const std::string& continue_token) {
  return !continue_token.empty() && result.status.code == 410;
}

// Tries to restart an expired list before giving up.
constexpr int k_list_restarts = 3;

// A LIST page's items are handed to `keep_item` as each is parsed (list items
// carry no apiVersion/kind: they are put back first), so only what it keeps
// of them is ever built.
model::Json parse_list_page(const std::string& body, const ResourceInfo& info, const ListOptions& options) {
  using Event = model::Json::parse_event_t;
  std::string top_key;
  auto on_event = [&](int depth, Event event, model::Json& parsed) {
    if (depth == 1 && event == Event::key) top_key = parsed.get<std::string>();
    if (depth != 2 || event != Event::object_end || top_key != "items") return true;
    parsed["apiVersion"] = info.gvk.api_version();
    parsed["kind"] = info.gvk.kind;
    return !options.keep_item || options.keep_item(parsed);
  };
  return model::Json::parse(body, on_event, false);
}

}  // namespace

HttpRequest ApiClient::get_request(const ResourceInfo& info, const std::string& namespace_name,
                                   const std::string& name) const {
  HttpRequest request;
  request.path = object_path(info, namespace_name, name);
  return request;
}

HttpRequest ApiClient::apply_request(const ResourceInfo& info, const model::Object& object,
                                     const ApplyOptions& options) const {
  HttpRequest request;
  request.method = "PATCH";
  request.path = object_path(info, object.namespace_name(), object.name()) +
                 "?fieldManager=" + url_escape(options.field_manager) + (options.force ? "&force=true" : "") +
                 (options.dry_run ? "&dryRun=All" : "");
  // JSON is YAML, so the apply-patch content type takes it as is.
  request.content_type = "application/apply-patch+yaml";
  request.body = object.body().dump();
  return request;
}

HttpRequest ApiClient::apply_status_request(const ResourceInfo& info, const model::Object& object,
                                            const ApplyOptions& options) const {
  HttpRequest request = apply_request(info, object, options);
  request.path = status_path(request.path);
  return request;
}

HttpRequest ApiClient::patch_request(const ResourceInfo& info, const std::string& namespace_name,
                                     const std::string& name, const model::Json& patch,
                                     const PatchOptions& options) const {
  HttpRequest request;
  request.method = "PATCH";
  request.path = object_path(info, namespace_name, name);
  if (!options.field_manager.empty())
    add_query(request.path, "fieldManager=" + url_escape(options.field_manager));
  if (options.dry_run) add_query(request.path, "dryRun=All");
  request.content_type = "application/merge-patch+json";
  request.body = patch.dump();
  // A merge patch that sets values lands the same way twice; one that
  // appends to a list would not, but opctl sends none of those.
  return request;
}

HttpRequest ApiClient::patch_status_request(const ResourceInfo& info, const std::string& namespace_name,
                                            const std::string& name, const model::Json& patch,
                                            const PatchOptions& options) const {
  HttpRequest request = patch_request(info, namespace_name, name, patch, options);
  request.path = status_path(request.path);
  return request;
}

HttpRequest ApiClient::create_request(const ResourceInfo& info, const model::Object& object,
                                      bool dry_run) const {
  HttpRequest request;
  request.method = "POST";
  request.path = collection_path(info, object.namespace_name()) + (dry_run ? "?dryRun=All" : "");
  request.content_type = "application/json";
  request.body = object.body().dump();
  request.retryable = false;
  return request;
}

HttpRequest ApiClient::delete_request(const ResourceInfo& info, const std::string& namespace_name,
                                      const std::string& name, const DeleteOptions& options) const {
  HttpRequest request;
  request.method = "DELETE";
  request.path = object_path(info, namespace_name, name) + (options.dry_run ? "?dryRun=All" : "");
  model::Json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (options.dry_run) body["dryRun"] = {"All"};
  if (!options.precondition_uid.empty()) body["preconditions"]["uid"] = options.precondition_uid;
  if (!options.precondition_resource_version.empty())
    body["preconditions"]["resourceVersion"] = options.precondition_resource_version;
  request.body = body.dump();
  request.content_type = "application/json";
  return request;
}

std::vector<ApiResult> ApiClient::send(const std::vector<HttpRequest>& requests) {
  auto responses = transport_.send_all(requests);
  std::vector<ApiResult> results(responses.size());
  for (std::size_t i = 0; i < responses.size(); ++i) {
    results[i].status = decode_status(responses[i], requests[i].method + " " + requests[i].path);
    if (results[i].ok()) results[i].object = model::Json::parse(responses[i].body, nullptr, false);
  }
  return results;
}

std::vector<ApiResult> ApiClient::execute(const std::vector<HttpRequest>& requests) {
  bool writes = std::any_of(requests.begin(), requests.end(),
                            [](const auto& request) { return request.method != "GET"; });
  if (!writes || !write_gate_) return send(requests);
  // Writes go in chunks with the gate asked before each, so a pass that lost
  // its Lease stops within one chunk, not after a batch of hundreds.
  std::vector<ApiResult> results;
  for (std::size_t from = 0; from < requests.size(); from += k_write_chunk) {
    write_gate_();
    auto to = std::min(requests.size(), from + k_write_chunk);
    auto part = send(std::vector<HttpRequest>(requests.begin() + static_cast<std::ptrdiff_t>(from),
                                              requests.begin() + static_cast<std::ptrdiff_t>(to)));
    std::move(part.begin(), part.end(), std::back_inserter(results));
  }
  return results;
}

// One page of a list, its body dropped as soon as it is parsed.
ApiResult ApiClient::read_list_page(const HttpRequest& request, const ResourceInfo& info,
                                    const ListOptions& options) {
  auto responses = transport_.send_all({request});
  ApiResult result;
  result.status = decode_status(responses.front(), request.method + " " + request.path);
  if (result.ok()) result.object = parse_list_page(responses.front().body, info, options);
  return result;
}

std::vector<model::Json> ApiClient::list(const ResourceInfo& info, const std::string& namespace_name,
                                         const ListOptions& options) {
  std::vector<model::Json> objects;
  std::string continue_token;
  int restarts = 0;
  while (true) {
    HttpRequest request;
    request.path = collection_path(info, namespace_name);
    if (options.page_size > 0) add_query(request.path, fmt::format("limit={}", options.page_size));
    if (!options.label_selector.empty())
      add_query(request.path, "labelSelector=" + url_escape(options.label_selector));
    if (!options.field_selector.empty())
      add_query(request.path, "fieldSelector=" + url_escape(options.field_selector));
    if (!continue_token.empty()) add_query(request.path, "continue=" + url_escape(continue_token));
    ApiResult result = read_list_page(request, info, options);
    if (continue_expired(result, continue_token) && ++restarts <= k_list_restarts) {
      objects.clear();
      continue_token.clear();
      continue;
    }
    if (!result.ok()) throw ApiError(result.status);
    if (!result.object.is_object())
      throw ApiError(
          {200, ApiReason::other, "GET " + request.path + ": the response is not a JSON list", {}});
    for (auto& item : result.object["items"])  // null when absent: no items
      objects.push_back(std::move(item));
    model::Json metadata = result.object.value("metadata", model::Json::object());
    continue_token = metadata.value("continue", "");
    if (continue_token.empty()) break;
  }
  return objects;
}

}  // namespace opctl::kube
