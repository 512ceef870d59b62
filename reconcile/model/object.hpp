// A Kubernetes object as opctl holds it: the JSON body, its identity, and
// where in the source it came from (for error messages).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace opctl::model {

using Json = nlohmann::json;

struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based line of the document start; 0 when not from a file
};

struct GroupVersionKind {
  std::string group;  // empty for the core group
  std::string version;
  std::string kind;

  // "apps/v1" -> {apps, v1}; "v1" -> {"", v1}
  static GroupVersionKind from(const std::string& api_version, const std::string& kind);
  std::string api_version() const;
  bool operator==(const GroupVersionKind&) const = default;
  auto operator<=>(const GroupVersionKind&) const = default;
};

// Identity of an object in the cluster: the version is left out on purpose,
// since one object is served under every version of its group.
struct ObjectKey {
  std::string group;
  std::string kind;
  std::string namespace_name;  // empty for cluster-scoped objects
  std::string name;

  // "apps/Deployment shop/web", "Namespace shop"
  std::string to_string() const;
  auto operator<=>(const ObjectKey&) const = default;
};

class Object {
 public:
  Object() = default;
  explicit Object(Json body, SourceLocation location = {}, std::map<std::string, int> field_lines = {});

  const Json& body() const { return body_; }
  Json& body() { return body_; }
  const SourceLocation& location() const { return location_; }

  std::string api_version() const;
  std::string kind() const;
  std::string name() const;
  std::string namespace_name() const;
  GroupVersionKind gvk() const;
  ObjectKey key() const;

  void set_namespace(const std::string& namespace_name);
  std::string label(const std::string& key) const;
  std::string annotation(const std::string& key) const;
  void set_label(const std::string& key, const std::string& value);
  void set_annotation(const std::string& key, const std::string& value);

  // The source line of a field given as a JSON pointer ("/spec/replicas"),
  // falling back to the nearest enclosing field, then the document start.
  int line_of(const std::string& json_pointer) const;
  // Frees the field lines (line_of then answers the document's line).
  void forget_field_lines();
  // What the field lines take (their arrays' capacities, in bytes).
  std::size_t field_line_bytes() const {
    return field_pointers_.capacity() + field_lines_.capacity() * sizeof(FieldLine);
  }

 private:
  std::string string_at(const Json::json_pointer& pointer) const;

  // The line of each field, packed: the pointers one after another in
  // `field_pointers_`, and where each is with its line, sorted by pointer. A
  // std::map costs a node and often a string per field, about as much as
  // the body itself.
  struct FieldLine {
    std::uint32_t offset;
    std::uint32_t size;
    int line;
  };
  std::string_view pointer_at(const FieldLine& entry) const;

  Json body_;
  SourceLocation location_;
  std::string field_pointers_;
  std::vector<FieldLine> field_lines_;
};

}  // namespace opctl::model
