// A Kubernetes object as opctl holds it: the JSON body, its identity, and
// where in the source it came from (for error messages).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
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

// An object of the desired set is held packed: its body as MessagePack (the
// wide bench set at N = 20,000 is 10 MB so, against 83 MiB of trees with their
// field-line tables) and its identity as plain strings, so
// that sorting, indexing and logging never decode it. Reading body() decodes
// it and keeps the tree until pack() drops it again; a loop over the whole set
// holds one object's tree at a time with PackedAfter. Changing the body goes
// through mutable_body(), which drops the packed form.
//
// Packing changes how the body is held, not what it is, so pack() is const
// and the tree and the packed form are mutable: a const object may be read
// and packed again. Objects are not shared between threads.
class Object {
 public:
  Object() = default;
  explicit Object(Json body, SourceLocation location = {}, std::map<std::string, int> field_lines = {});

  // The body as a tree, decoded first when the object is packed.
  const Json& body() const;
  // The body to change: decoded first, and the packed form is dropped.
  Json& mutable_body();
  // A copy of the body, decoded straight from the packed form when there is
  // one (the object stays as it is held).
  Json body_copy() const;
  // Replaces the body (the packed form is dropped, nothing is decoded).
  void set_body(Json body);

  // Keeps the body packed only: encodes it if the packed form is not current,
  // then frees the tree.
  void pack() const;
  bool is_packed() const { return !has_tree_; }
  // What the body takes while packed (bytes of MessagePack; 0 when not packed).
  std::size_t packed_bytes() const { return packed_.size(); }

  const SourceLocation& location() const { return location_; }

  std::string api_version() const;
  std::string kind() const;
  std::string name() const;
  std::string namespace_name() const;
  GroupVersionKind gvk() const;
  ObjectKey key() const;

  // The setters leave a packed object packed when the value is already there.
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
    return field_hashes_.capacity() * sizeof(std::uint64_t) + field_lines_.capacity() * sizeof(std::int32_t);
  }

 private:
  struct Identity {
    std::string api_version;
    std::string kind;
    std::string name;
    std::string namespace_name;
  };

  // The string at a path of object keys; nullopt when it is absent or not a string.
  std::optional<std::string> string_at(std::initializer_list<std::string_view> path) const;
  void unpack() const;

  mutable Json body_;
  mutable bool has_tree_ = true;
  // The body as MessagePack; empty when it is not current (never packed, or
  // changed since through mutable_body()).
  mutable std::string packed_;
  // Read from the tree by pack(); answers the identity while there is no tree.
  mutable Identity identity_;
  SourceLocation location_;
  // The line of each field, keyed by a 64-bit hash of its JSON pointer and
  // sorted by it: 12 bytes a field. The pointers themselves cost about three
  // times as much, and a field's line is only read for an error message.
  std::vector<std::uint64_t> field_hashes_;
  std::vector<std::int32_t> field_lines_;
};

// Packs an object again at the end of a scope that reads or changes it, if it
// was packed when the scope began: a loop over the whole set then holds one
// object's tree at a time.
class PackedAfter {
 public:
  explicit PackedAfter(const Object& object) : object_(object), was_packed_(object.is_packed()) {}
  ~PackedAfter() {
    if (was_packed_) object_.pack();
  }
  PackedAfter(const PackedAfter&) = delete;
  PackedAfter& operator=(const PackedAfter&) = delete;

 private:
  const Object& object_;
  bool was_packed_;
};

}  // namespace opctl::model
