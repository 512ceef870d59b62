#include "model/object.hpp"

#include <algorithm>

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
    : body_(std::move(body)), location_(std::move(location)) {
  std::size_t size = 0;
  for (const auto& [pointer, line] : field_lines)
    size += pointer.size();
  field_pointers_.reserve(size);
  field_lines_.reserve(field_lines.size());
  for (const auto& [pointer, line] : field_lines) {  // a std::map: already sorted
    field_lines_.push_back({static_cast<std::uint32_t>(field_pointers_.size()),
                            static_cast<std::uint32_t>(pointer.size()), line});
    field_pointers_ += pointer;
  }
}

void Object::forget_field_lines() {
  // Swapped out, not assigned: move-assigning an empty (short) string keeps
  // the target's buffer, and 20,000 of them were 11 MiB of a pass's peak.
  std::string().swap(field_pointers_);
  std::vector<FieldLine>().swap(field_lines_);
}

std::string_view Object::pointer_at(const FieldLine& entry) const {
  return std::string_view(field_pointers_).substr(entry.offset, entry.size);
}

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
    auto found = std::lower_bound(
        field_lines_.begin(), field_lines_.end(), std::string_view(pointer),
        [this](const FieldLine& entry, std::string_view wanted) { return pointer_at(entry) < wanted; });
    if (found != field_lines_.end() && pointer_at(*found) == pointer) return found->line;
    pointer = pointer.substr(0, pointer.rfind('/'));
  }
  return location_.line;
}

}  // namespace opctl::model
