#include "model/object.hpp"

namespace opctl::model {

GroupVersionKind GroupVersionKind::from(const std::string& api_version, const std::string& kind) {
  auto slash = api_version.find('/');
  if (slash == std::string::npos) return {"", api_version, kind};
  return {api_version.substr(0, slash), api_version.substr(slash + 1), kind};
}

std::string GroupVersionKind::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ObjectKey::to_string() const {
  std::string text = group.empty() ? kind : group + "/" + kind;
  text += " ";
  if (!namespace_name.empty()) text += namespace_name + "/";
  return text + name;
}

Object::Object(Json body, SourceLocation location, std::map<std::string, int> field_lines)
    : body_(std::move(body)), location_(std::move(location)), field_lines_(std::move(field_lines)) {}

std::string Object::string_at(const Json::json_pointer& pointer) const {
  if (!body_.is_object() || !body_.contains(pointer)) return "";
  const auto& value = body_.at(pointer);
  return value.is_string() ? value.get<std::string>() : "";
}

std::string Object::api_version() const {
  return string_at(Json::json_pointer("/apiVersion"));
}
std::string Object::kind() const {
  return string_at(Json::json_pointer("/kind"));
}
std::string Object::name() const {
  return string_at(Json::json_pointer("/metadata/name"));
}
std::string Object::namespace_name() const {
  return string_at(Json::json_pointer("/metadata/namespace"));
}
GroupVersionKind Object::gvk() const {
  return GroupVersionKind::from(api_version(), kind());
}

ObjectKey Object::key() const {
  auto type = gvk();
  return {type.group, type.kind, namespace_name(), name()};
}

void Object::set_namespace(const std::string& namespace_name) {
  body_["metadata"]["namespace"] = namespace_name;
}

std::string Object::label(const std::string& key) const {
  return string_at(Json::json_pointer("/metadata/labels") / key);
}

std::string Object::annotation(const std::string& key) const {
  return string_at(Json::json_pointer("/metadata/annotations") / key);
}

void Object::set_label(const std::string& key, const std::string& value) {
  body_["metadata"]["labels"][key] = value;
}

void Object::set_annotation(const std::string& key, const std::string& value) {
  body_["metadata"]["annotations"][key] = value;
}

int Object::line_of(const std::string& json_pointer) const {
  std::string pointer = json_pointer;
  while (!pointer.empty()) {
    if (auto found = field_lines_.find(pointer); found != field_lines_.end()) return found->second;
    pointer = pointer.substr(0, pointer.rfind('/'));
  }
  return location_.line;
}

}  // namespace opctl::model
