// An in-memory apiserver behind the kube layer's FakeTransport, for unit
// tests of what sends many requests (the pass's executor, the KindRunner):
// aggregated discovery for a fixed set of kinds, objects stored by path with
// resourceVersion and uid, server-side apply that records the manager's
// fields (so a second pass is a no-op), LIST with an equality or existence label selector,
// DELETE with a uid precondition, status subresources, Events. Scripted
// answers of the FakeTransport (`answer`) win over the store: that is how a
// test injects a fault. CRDs become Established on apply unless told not to.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../kube/fake_transport.hpp"
#include "model/object.hpp"

namespace opctl::testing {

class FakeApiServer : public kube::testing::FakeTransport {
 public:
  using Json = model::Json;

  struct Resource {
    std::string group, version, kind, plural;
    bool namespaced = true;
  };

  FakeApiServer() {
    resources_ = {
        {"", "v1", "ConfigMap", "configmaps", true},
        {"", "v1", "Secret", "secrets", true},
        {"", "v1", "Service", "services", true},
        {"", "v1", "Event", "events", true},
        {"", "v1", "Namespace", "namespaces", false},
        {"apps", "v1", "Deployment", "deployments", true},
        {"apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false}};
  }

  bool establish_crds = true;
  std::set<std::string> methods_seen;

  // Adds a served kind (what a CRD's establishment would add).
  void serve(Resource resource) { resources_.push_back(std::move(resource)); }

  // Stores an object as if applied earlier by `manager` (empty: by nobody);
  // it keeps the uid it carries.
  void store(Json object, const std::string& manager = "") {
    auto path = object_path_of(object);
    prepare_new(object);
    if (!manager.empty()) record_manager(object, object, manager);
    objects_[path] = std::move(object);
  }

  std::optional<Json> get(const std::string& group, const std::string& plural,
                          const std::string& namespace_name, const std::string& name) const {
    for (const auto& resource : resources_)
      if (resource.group == group && resource.plural == plural) {
        auto found = objects_.find(base(resource) + scope(resource, namespace_name) + plural + "/" + name);
        if (found != objects_.end()) return found->second;
      }
    return std::nullopt;
  }

  // Writes (PATCH, POST, DELETE, PUT) sent so far, as "METHOD path-without-query".
  std::vector<std::string> writes() const {
    std::vector<std::string> out;
    for (const auto& request : requests)
      if (request.method != "GET")
        out.push_back(request.method + " " + request.path.substr(0, request.path.find('?')));
    return out;
  }

  std::vector<kube::HttpResponse> send_all(const std::vector<kube::HttpRequest>& batch) override {
    std::vector<kube::HttpResponse> out;
    for (const auto& request : batch) {
      requests.push_back(request);
      std::string path = request.path.substr(0, request.path.find('?'));
      if (auto scripted = responses.find(request.method + " " + path); scripted != responses.end()) {
        out.push_back(scripted->second.front());
        if (scripted->second.size() > 1) scripted->second.pop_front();
        continue;
      }
      out.push_back(handle(request, path));
    }
    return out;
  }

 private:
  struct Target {
    const Resource* resource = nullptr;
    std::string namespace_name, name, subresource;
  };

  static kube::HttpResponse reply(long status, const Json& body) { return {status, body.dump(), "", 1}; }
  static kube::HttpResponse status(long code, const std::string& reason, const std::string& message) {
    return reply(code, {{"kind", "Status"}, {"code", code}, {"reason", reason}, {"message", message}});
  }

  static std::string base(const Resource& resource) {
    return resource.group.empty() ? "/api/v1/" : "/apis/" + resource.group + "/" + resource.version + "/";
  }
  static std::string scope(const Resource& resource, const std::string& namespace_name) {
    return resource.namespaced && !namespace_name.empty() ? "namespaces/" + namespace_name + "/" : "";
  }

  const Resource* resource_of(const std::string& api_version, const std::string& kind) const {
    auto gvk = model::GroupVersionKind::from(api_version, kind);
    for (const auto& resource : resources_)
      if (resource.group == gvk.group && resource.kind == kind) return &resource;
    return nullptr;
  }

  std::string object_path_of(const Json& object) const {
    const Resource* resource = resource_of(object.value("apiVersion", ""), object.value("kind", ""));
    const Json& metadata = object.at("metadata");
    return base(*resource) + scope(*resource, metadata.value("namespace", "")) + resource->plural + "/" +
           metadata.value("name", "");
  }

  std::optional<Target> parse(const std::string& path) const {
    for (const auto& resource : resources_) {
      std::string prefix = base(resource);
      if (path.rfind(prefix, 0) != 0) continue;
      std::vector<std::string> parts;
      std::size_t from = prefix.size();
      while (from <= path.size()) {
        auto to = path.find('/', from);
        if (to == std::string::npos) to = path.size();
        parts.push_back(path.substr(from, to - from));
        from = to + 1;
      }
      Target target{&resource, "", "", ""};
      std::size_t at = 0;
      if (resource.namespaced && parts.size() >= 3 && parts[0] == "namespaces") {
        target.namespace_name = parts[1];
        at = 2;
      }
      if (parts.size() <= at || parts[at] != resource.plural) continue;
      if (parts.size() > at + 1) target.name = parts[at + 1];
      if (parts.size() > at + 2) target.subresource = parts[at + 2];
      return target;
    }
    return std::nullopt;
  }

  kube::HttpResponse handle(const kube::HttpRequest& request, const std::string& path) {
    methods_seen.insert(request.method);
    if (path == "/api" || path == "/apis") return discovery(path == "/api");
    auto target = parse(path);
    if (!target) return status(404, "NotFound", "no such resource: " + path);
    std::string object_path =
        path.substr(0, path.size() - (target->subresource.empty() ? 0 : target->subresource.size() + 1));
    if (request.method == "GET" && target->name.empty()) return list(*target, request.path);
    if (request.method == "GET") {
      auto found = objects_.find(object_path);
      if (found == objects_.end()) return status(404, "NotFound", target->name + " not found");
      return reply(200, found->second);
    }
    if (request.method == "PATCH") return apply(request, object_path, target->subresource == "status");
    if (request.method == "POST") {
      Json object = Json::parse(request.body);
      if (object["metadata"].value("name", "").empty())
        object["metadata"]["name"] =
            object["metadata"].value("generateName", "x-") + std::to_string(++next_uid_);
      object["metadata"]["namespace"] = target->namespace_name;
      prepare_new(object);
      objects_[path + "/" + object["metadata"].value("name", "")] = object;
      return reply(201, object);
    }
    if (request.method == "DELETE") {
      auto found = objects_.find(object_path);
      if (found == objects_.end()) return status(404, "NotFound", target->name + " not found");
      Json options = request.body.empty() ? Json::object() : Json::parse(request.body);
      std::string uid = options.value("/preconditions/uid"_json_pointer, "");
      if (!uid.empty() && uid != found->second["metadata"].value("uid", ""))
        return status(409, "Conflict", "Precondition failed: UID in precondition: " + uid);
      Json gone = found->second;
      objects_.erase(found);
      return reply(200, gone);
    }
    return status(405, "MethodNotAllowed", request.method);
  }

  kube::HttpResponse list(const Target& target, const std::string& full_path) const {
    // "key=value", or "key": the label is present, whatever its value.
    std::string selector_key;
    std::optional<std::string> selector_value;
    if (auto at = full_path.find("labelSelector="); at != std::string::npos) {
      std::string selector = decode(full_path.substr(at + 14, full_path.find('&', at) - at - 14));
      auto equals = selector.find('=');
      selector_key = selector.substr(0, equals);
      if (equals != std::string::npos) selector_value = selector.substr(equals + 1);
    }
    Json items = Json::array();
    std::string prefix = base(*target.resource) + scope(*target.resource, target.namespace_name) +
                         target.resource->plural + "/";
    for (const auto& [path, object] : objects_) {
      if (path.rfind(base(*target.resource), 0) != 0) continue;
      if (object.value("kind", "") != target.resource->kind) continue;
      if (!target.namespace_name.empty() && path.rfind(prefix, 0) != 0) continue;
      if (!selector_key.empty()) {
        auto labels = object["metadata"].value("labels", Json::object());
        if (!labels.contains(selector_key)) continue;
        if (selector_value && labels.value(selector_key, "") != *selector_value) continue;
      }
      items.push_back(object);
    }
    return reply(200, {{"kind", target.resource->kind + "List"},
                       {"metadata", {{"resourceVersion", "1"}}},
                       {"items", items}});
  }

  kube::HttpResponse apply(const kube::HttpRequest& request, const std::string& path, bool status_only) {
    Json desired = Json::parse(request.body);
    std::string manager = decode(query_value(request.path, "fieldManager"));
    auto found = objects_.find(path);
    if (status_only) {
      if (found == objects_.end()) return status(404, "NotFound", "not found");
      Json& live = found->second;
      Json before = live;
      live["status"] = desired.value("status", Json::object());
      if (live != before) bump(live);
      return reply(200, live);
    }
    bool created = found == objects_.end();
    Json live = created ? Json::object() : found->second;
    Json next = live;
    for (const auto& [key, value] : desired.items())
      if (key != "metadata" && key != "status") next[key] = value;
    for (const auto& [key, value] : desired["metadata"].items()) {
      if (key == "labels" || key == "annotations") {
        for (const auto& [name, text] : value.items())
          next["metadata"][key][name] = text;
      } else if (key != "resourceVersion" && key != "uid") {
        next["metadata"][key] = value;
      }
    }
    if (next.value("kind", "") == "CustomResourceDefinition" && establish_crds && !next.contains("status"))
      next["status"] = {{"conditions", Json::array({{{"type", "Established"}, {"status", "True"}}})}};
    record_manager(next, desired, manager);
    if (created) {
      prepare_new(next);
    } else if (next != live) {
      bump(next);
    }
    objects_[path] = next;
    return reply(created ? 201 : 200, next);
  }

  // The manager's Apply entry: the fields of what it sent (maps field by
  // field, lists whole), as the fast path reads them.
  static Json fields_of(const Json& value) {
    Json fields = Json::object();
    if (!value.is_object()) return fields;
    for (const auto& [key, child] : value.items())
      fields["f:" + key] = fields_of(child);
    return fields;
  }
  static void record_manager(Json& object, const Json& sent, const std::string& manager) {
    Json fields = Json::object();
    for (const auto& [key, value] : sent.items()) {
      if (key == "apiVersion" || key == "kind" || key == "status") continue;
      if (key == "metadata") {
        for (const auto& [field, child] : value.items())
          if (field == "labels" || field == "annotations")
            fields["f:metadata"]["f:" + field] = fields_of(child);
        continue;
      }
      fields["f:" + key] = fields_of(value);
    }
    Json entries = Json::array();
    for (const auto& entry : object["metadata"].value("managedFields", Json::array()))
      if (entry.value("manager", "") != manager) entries.push_back(entry);
    entries.push_back({{"manager", manager},
                       {"operation", "Apply"},
                       {"apiVersion", sent.value("apiVersion", "")},
                       {"fieldsType", "FieldsV1"},
                       {"fieldsV1", fields}});
    object["metadata"]["managedFields"] = entries;
  }

  void prepare_new(Json& object) {
    if (!object["metadata"].contains("uid")) object["metadata"]["uid"] = "uid-" + std::to_string(++next_uid_);
    bump(object);
  }
  void bump(Json& object) { object["metadata"]["resourceVersion"] = std::to_string(++next_version_); }

  static std::string query_value(const std::string& path, const std::string& key) {
    auto at = path.find(key + "=");
    if (at == std::string::npos) return "";
    at += key.size() + 1;
    return path.substr(at, path.find('&', at) - at);
  }
  static std::string decode(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '%' && i + 2 < text.size()) {
        out.push_back(static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16)));
        i += 2;
      } else {
        out.push_back(text[i]);
      }
    }
    return out;
  }

  kube::HttpResponse discovery(bool core) const {
    std::map<std::string, Json> groups;
    for (const auto& resource : resources_) {
      if (resource.group.empty() != core) continue;
      Json& group = groups[resource.group];
      if (group.is_null()) group = {{"metadata", {{"name", resource.group}}}, {"versions", Json::array()}};
      Json& versions = group["versions"];
      Json* version = nullptr;
      for (auto& existing : versions)
        if (existing["version"] == resource.version) version = &existing;
      if (version == nullptr) {
        versions.push_back({{"version", resource.version}, {"resources", Json::array()}});
        version = &versions.back();
      }
      (*version)["resources"].push_back({{"resource", resource.plural},
                                         {"responseKind", {{"kind", resource.kind}}},
                                         {"scope", resource.namespaced ? "Namespaced" : "Cluster"},
                                         {"verbs", {"get", "list", "patch", "create", "delete"}},
                                         {"subresources", Json::array({{{"subresource", "status"}}})}});
    }
    Json items = Json::array();
    for (auto& [name, group] : groups)
      items.push_back(group);
    return reply(
        200, {{"kind", "APIGroupDiscoveryList"}, {"apiVersion", "apidiscovery.k8s.io/v2"}, {"items", items}});
  }

  std::vector<Resource> resources_;
  std::map<std::string, Json> objects_;  // by object path
  long next_uid_ = 0;
  long next_version_ = 0;
};

}  // namespace opctl::testing
