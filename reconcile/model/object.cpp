#include "model/object.hpp"

#include <algorithm>
#include <optional>
#include <span>

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

namespace {

// FNV-1a, 64 bits: two pointers of one object colliding is a chance in 10^16.
std::uint64_t pointer_hash(std::string_view pointer) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (char c : pointer) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

// Finds the string at a path of object keys in a packed body without
// decoding it: a SAX pass that stops at the value, or at the end of the
// innermost object on the path. A label read costs a scan, not a tree.
class StringFinder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit StringFinder(std::span<const std::string_view> path) : path_(path) {}

  std::optional<std::string> take() { return std::move(found_); }

  bool null() { return scalar(); }
  bool boolean(bool) { return scalar(); }
  bool number_integer(number_integer_t) { return scalar(); }
  bool number_unsigned(number_unsigned_t) { return scalar(); }
  bool number_float(number_float_t, const string_t&) { return scalar(); }
  bool binary(binary_t&) { return scalar(); }
  bool string(string_t& value) {
    if (!at_target()) return scalar();
    found_ = std::move(value);
    return false;
  }
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  // Keys come only inside objects; the innermost container on the path is one.
  bool key(string_t& name) {
    next_on_path_ = on_path_ == depth_ && depth_ - 1 < path_.size() && name == path_[depth_ - 1];
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  // The value about to be read is the one the path names.
  bool at_target() const { return next_on_path_ && depth_ == path_.size(); }
  // Stops at the target: it is there, but not a string.
  bool scalar() {
    if (at_target()) return false;
    next_on_path_ = false;
    return true;
  }
  bool open(bool object) {
    bool root = depth_ == 0;
    if (root || next_on_path_) {
      // The path goes on only through objects, and ends at a string.
      if (!object || (!root && depth_ >= path_.size())) return false;
      on_path_ = depth_ + 1;
    }
    ++depth_;
    next_on_path_ = false;
    return true;
  }
  bool close() {
    if (on_path_ == depth_) return false;  // the innermost object on the path ends: not there
    --depth_;
    return true;
  }

  std::span<const std::string_view> path_;
  std::size_t depth_ = 0;      // containers open
  std::size_t on_path_ = 0;    // of those, how many lie on the path (the outermost ones)
  bool next_on_path_ = false;  // the last key read is the path's next step
  std::optional<std::string> found_;
};

}  // namespace

Object::Object(Json body, SourceLocation location, std::map<std::string, int> field_lines)
    : body_(std::move(body)), location_(std::move(location)) {
  std::vector<std::pair<std::uint64_t, int>> entries;
  entries.reserve(field_lines.size());
  for (const auto& [pointer, line] : field_lines)
    entries.emplace_back(pointer_hash(pointer), line);
  std::sort(entries.begin(), entries.end());
  field_hashes_.reserve(entries.size());
  field_lines_.reserve(entries.size());
  for (const auto& [hash, line] : entries) {
    field_hashes_.push_back(hash);
    field_lines_.push_back(line);
  }
}

const Json& Object::body() const {
  if (!has_tree_) unpack();
  return body_;
}

Json& Object::mutable_body() {
  if (!has_tree_) unpack();
  std::string().swap(packed_);
  return body_;
}

Json Object::body_copy() const {
  if (has_tree_) return body_;
  return Json::from_msgpack(packed_);
}

void Object::unpack() const {
  body_ = Json::from_msgpack(packed_);
  has_tree_ = true;
}

void Object::pack() const {
  if (!has_tree_) return;
  if (packed_.empty()) {
    identity_ = {api_version(), kind(), name(), namespace_name()};
    Json::to_msgpack(body_, packed_);
    packed_.shrink_to_fit();
  }
  Json().swap(body_);
  has_tree_ = false;
}

void Object::forget_field_lines() {
  // Swapped out, not assigned: a cleared vector keeps its buffer, and
  // 20,000 of them were megabytes of a pass's peak.
  std::vector<std::uint64_t>().swap(field_hashes_);
  std::vector<std::int32_t>().swap(field_lines_);
}

std::optional<std::string> Object::string_at(std::initializer_list<std::string_view> path) const {
  if (!has_tree_) {
    // Read from the packed form, not unpacked: a label read in passing leaves
    // no tree behind, and changes nothing another reader sees.
    StringFinder finder(std::span<const std::string_view>(path.begin(), path.size()));
    Json::sax_parse(packed_.begin(), packed_.end(), &finder, Json::input_format_t::msgpack);
    return finder.take();
  }
  const Json* at = &body_;
  for (std::string_view step : path) {
    if (!at->is_object()) return std::nullopt;
    auto found = at->find(step);
    if (found == at->end()) return std::nullopt;
    at = &*found;
  }
  if (!at->is_string()) return std::nullopt;
  return at->get<std::string>();
}

std::string Object::api_version() const {
  return has_tree_ ? string_at({"apiVersion"}).value_or("") : identity_.api_version;
}
std::string Object::kind() const {
  return has_tree_ ? string_at({"kind"}).value_or("") : identity_.kind;
}
std::string Object::name() const {
  return has_tree_ ? string_at({"metadata", "name"}).value_or("") : identity_.name;
}
std::string Object::namespace_name() const {
  return has_tree_ ? string_at({"metadata", "namespace"}).value_or("") : identity_.namespace_name;
}
GroupVersionKind Object::gvk() const {
  return GroupVersionKind::from(api_version(), kind());
}

ObjectKey Object::key() const {
  auto type = gvk();
  return {type.group, type.kind, namespace_name(), name()};
}

void Object::set_namespace(const std::string& namespace_name) {
  if (string_at({"metadata", "namespace"}) == namespace_name) return;  // kept packed
  mutable_body()["metadata"]["namespace"] = namespace_name;
}

std::string Object::label(const std::string& key) const {
  return string_at({"metadata", "labels", key}).value_or("");
}

std::string Object::annotation(const std::string& key) const {
  return string_at({"metadata", "annotations", key}).value_or("");
}

void Object::set_label(const std::string& key, const std::string& value) {
  if (string_at({"metadata", "labels", key}) == value) return;  // kept packed
  mutable_body()["metadata"]["labels"][key] = value;
}

void Object::set_annotation(const std::string& key, const std::string& value) {
  if (string_at({"metadata", "annotations", key}) == value) return;  // kept packed
  mutable_body()["metadata"]["annotations"][key] = value;
}

void Object::set_body(Json body) {
  body_ = std::move(body);
  has_tree_ = true;
  std::string().swap(packed_);
}

int Object::line_of(const std::string& json_pointer) const {
  std::string_view pointer = json_pointer;
  while (!pointer.empty()) {
    auto found = std::lower_bound(field_hashes_.begin(), field_hashes_.end(), pointer_hash(pointer));
    if (found != field_hashes_.end() && *found == pointer_hash(pointer))
      return field_lines_[static_cast<std::size_t>(found - field_hashes_.begin())];
    pointer = pointer.substr(0, pointer.rfind('/'));
  }
  return location_.line;
}

}  // namespace opctl::model
