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
model::Json parse_list_page(const std::string& body, const ResourceInfo& info, const ListOptions& options,
                            std::size_t& items_parsed) {
  using Event = model::Json::parse_event_t;
  std::string top_key;
  auto on_event = [&](int depth, Event event, model::Json& parsed) {
    if (depth == 1 && event == Event::key) top_key = parsed.get<std::string>();
    if (depth != 2 || event != Event::object_end || top_key != "items") return true;
    ++items_parsed;
    parsed["apiVersion"] = info.gvk.api_version();
    parsed["kind"] = info.gvk.kind;
    return !options.keep_item || options.keep_item(parsed);
  };
  return model::Json::parse(body, on_event, false);
}

// Where the reading of one list target stands.
struct ListCursor {
  const ListTarget* target;
  ListOutcome* outcome;
  std::string continue_token;
  int pages;
  int restarts;
  bool done;
};

HttpRequest list_page_request(const ListTarget& target, const std::string& continue_token) {
  const auto& options = target.options;
  HttpRequest request;
  request.path = collection_path(target.info, target.namespace_name);
  if (options.page_size > 0) add_query(request.path, fmt::format("limit={}", options.page_size));
  if (!options.label_selector.empty())
    add_query(request.path, "labelSelector=" + url_escape(options.label_selector));
  if (!options.field_selector.empty())
    add_query(request.path, "fieldSelector=" + url_escape(options.field_selector));
  if (!continue_token.empty()) add_query(request.path, "continue=" + url_escape(continue_token));
  return request;
}

// Adds one page to its target's outcome and moves the cursor on: to the next
// page, back to the first when the continue token expired, or to the end.
void take_page(ListCursor& cursor, const HttpRequest& request, const HttpResponse& response) {
  ApiResult result;
  result.status = decode_status(response, request.method + " " + request.path);
  auto& outcome = *cursor.outcome;
  if (result.ok())
    result.object =
        parse_list_page(response.body, cursor.target->info, cursor.target->options, outcome.parsed);
  if (continue_expired(result, cursor.continue_token) && ++cursor.restarts <= k_list_restarts) {
    // From the first page again (even for a target that began at
    // continue_from: its caller keeps what it had, and reads it twice).
    outcome.items.clear();
    outcome.parsed = 0;
    cursor.continue_token.clear();
    cursor.pages = 0;
    return;
  }
  cursor.done = true;
  if (!result.ok()) {
    outcome.status = result.status;
    return;
  }
  if (!result.object.is_object()) {
    outcome.status = {200, ApiReason::other, "GET " + request.path + ": the response is not a JSON list", {}};
    return;
  }
  for (auto& item : result.object["items"])  // null when absent: no items
    outcome.items.push_back(std::move(item));
  model::Json metadata = result.object.value("metadata", model::Json::object());
  cursor.continue_token = metadata.value("continue", "");
  cursor.done = cursor.continue_token.empty();
  int max_pages = cursor.target->options.max_pages;
  if (!cursor.done && max_pages > 0 && ++cursor.pages >= max_pages) {
    outcome.continue_token = cursor.continue_token;
    cursor.done = true;
  }
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
  model::PackedAfter packed(object);
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
  model::PackedAfter packed(object);
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
  bool writes =
      std::any_of(requests.begin(), requests.end(), [](const auto& request) { return !is_read(request); });
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

std::vector<model::Json> ApiClient::list(const ResourceInfo& info, const std::string& namespace_name,
                                         const ListOptions& options) {
  // The whole collection, whatever options.max_pages says: the items alone
  // cannot tell a caller that the list stopped early (list_all's outcome can).
  ListOptions whole = options;
  whole.max_pages = 0;
  auto outcome = std::move(list_all({ListTarget{info, namespace_name, whole, ""}}).front());
  if (!outcome.ok()) throw ApiError(outcome.status);
  return std::move(outcome.items);
}

std::vector<ListOutcome> ApiClient::list_all(const std::vector<ListTarget>& targets) {
  std::vector<ListOutcome> outcomes(targets.size());
  std::vector<ListCursor> cursors;
  cursors.reserve(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i)
    cursors.push_back(ListCursor{&targets[i], &outcomes[i], targets[i].continue_from, 0, 0, false});
  // A target leaves the window when its last page is read and the next one
  // takes its place, so a long list never holds the short ones back.
  std::vector<ListCursor*> window;
  std::size_t next = 0;
  while (true) {
    while (window.size() < k_list_window && next < cursors.size())
      window.push_back(&cursors[next++]);
    if (window.empty()) break;
    std::vector<HttpRequest> requests;
    for (const auto* cursor : window)
      requests.push_back(list_page_request(*cursor->target, cursor->continue_token));
    auto responses = transport_.send_all(requests);
    for (std::size_t i = 0; i < window.size(); ++i) {
      take_page(*window[i], requests[i], responses[i]);
      responses[i].body = std::string();  // each page's text freed once it is parsed
    }
    std::erase_if(window, [](const ListCursor* cursor) { return cursor->done; });
  }
  return outcomes;
}

}  // namespace opctl::kube
