#include "kube/api_client.hpp"

#include <fmt/format.h>

namespace opctl::kube {

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
  auto query = request.path.find('?');
  request.path = request.path.substr(0, query) + "/status" + request.path.substr(query);
  return request;
}

HttpRequest ApiClient::create_request(const ResourceInfo& info, const model::Object& object, bool dry_run) const {
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
  model::Json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"},
                      {"propagationPolicy", options.propagation_policy}};
  if (!options.precondition_uid.empty()) body["preconditions"] = {{"uid", options.precondition_uid}};
  request.body = body.dump();
  request.content_type = "application/json";
  return request;
}

std::vector<ApiResult> ApiClient::execute(const std::vector<HttpRequest>& requests) {
  auto responses = transport_.send_all(requests);
  std::vector<ApiResult> results(responses.size());
  for (std::size_t i = 0; i < responses.size(); ++i) {
    results[i].status = decode_status(responses[i], requests[i].method + " " + requests[i].path);
    if (results[i].ok()) results[i].object = model::Json::parse(responses[i].body, nullptr, false);
  }
  return results;
}

std::vector<model::Json> ApiClient::list(const ResourceInfo& info, const std::string& namespace_name,
                                         const ListOptions& options) {
  std::vector<model::Json> items;
  std::string continue_token;
  do {
    HttpRequest request;
    request.path = collection_path(info, namespace_name) + fmt::format("?limit={}", options.page_size);
    if (!options.label_selector.empty()) request.path += "&labelSelector=" + url_escape(options.label_selector);
    if (!options.field_selector.empty()) request.path += "&fieldSelector=" + url_escape(options.field_selector);
    if (!continue_token.empty()) request.path += "&continue=" + url_escape(continue_token);
    ApiResult result = execute(request);
    if (!result.ok()) throw ApiError(result.status);
    std::string item_kind = info.gvk.kind;
    for (auto& item : result.object.value("items", model::Json::array())) {
      // List items carry no apiVersion/kind; put them back so they read as objects.
      item["apiVersion"] = info.gvk.api_version();
      item["kind"] = item_kind;
      items.push_back(std::move(item));
    }
    continue_token = result.object.contains("metadata") ? result.object["metadata"].value("continue", "") : "";
  } while (!continue_token.empty());
  return items;
}

}  // namespace opctl::kube
