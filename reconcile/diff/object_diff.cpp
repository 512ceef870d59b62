#include "diff/object_diff.hpp"

#include <algorithm>
#include <set>

#include "diff/line_diff.hpp"
#include "diff/normalize.hpp"
#include "diff/secret_masking.hpp"
#include "model/yaml_document.hpp"

namespace opctl::diff {

using model::Json;
using Pointer = Json::json_pointer;

namespace {

void collect_paths(const Json& before, const Json& after, const Pointer& at, std::set<std::string>& paths);

// The longest common subsequence of two lists, as pairs of indices.
std::vector<std::pair<std::size_t, std::size_t>> common_elements(const Json& a, const Json& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> length(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      length[i][j] = a[i] == b[j] ? length[i + 1][j + 1] + 1 : std::max(length[i + 1][j], length[i][j + 1]);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0, j = 0; i < n && j < m;) {
    if (a[i] == b[j]) {
      pairs.emplace_back(i++, j++);
    } else if (length[i + 1][j] >= length[i][j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  pairs.emplace_back(n, m);
  return pairs;
}

// Whether two list elements stand for the same thing: the first identity
// field (a merge key of the built-in kinds) either has must be equal; with
// none, position decides.
bool same_identity(const Json& a, const Json& b) {
  if (!a.is_object() || !b.is_object()) return a.type() == b.type() && a.is_structured();
  for (const char* field :
       {"name", "key", "containerPort", "port", "mountPath", "devicePath", "ip", "type"}) {
    if (a.contains(field) || b.contains(field))
      return a.contains(field) && b.contains(field) && a[field] == b[field];
  }
  return true;
}

// Lists: elements kept in order are unchanged; between two kept ones, a
// removed and an added element in the same place with the same identity are
// one changed element.
void collect_list_paths(const Json& before, const Json& after, const Pointer& at,
                        std::set<std::string>& paths) {
  constexpr std::size_t k_max_cells = 1'000'000;
  if ((before.size() + 1) * (after.size() + 1) > k_max_cells) {
    paths.insert(at.to_string());
    return;
  }
  std::size_t i = 0, j = 0;
  for (auto [next_i, next_j] : common_elements(before, after)) {
    for (; i < next_i && j < next_j; ++i, ++j) {
      if (same_identity(before[i], after[j])) {
        collect_paths(before[i], after[j], at / j, paths);
      } else {
        paths.insert((at / i).to_string());
        paths.insert((at / j).to_string());
      }
    }
    for (; i < next_i; ++i)
      paths.insert((at / i).to_string());
    for (; j < next_j; ++j)
      paths.insert((at / j).to_string());
    ++i, ++j;
  }
}

void collect_paths(const Json& before, const Json& after, const Pointer& at, std::set<std::string>& paths) {
  if (before == after) return;
  if (before.is_object() && after.is_object()) {
    for (const auto& [field, value] : before.items())
      if (!after.contains(field)) paths.insert((at / field).to_string());
    for (const auto& [field, value] : after.items())
      collect_paths(before.contains(field) ? before[field] : Json(), value, at / field, paths);
  } else if (before.is_array() && after.is_array()) {
    collect_list_paths(before, after, at, paths);
  } else {
    paths.insert(at.to_string());
  }
}

}  // namespace

std::vector<std::string> changed_paths(const Json& before, const Json& after) {
  std::set<std::string> paths;
  collect_paths(before, after, Pointer(), paths);
  return {paths.begin(), paths.end()};
}

const char* to_string(Change change) {
  switch (change) {
    case Change::added:
      return "added";
    case Change::changed:
      return "changed";
    case Change::unchanged:
      return "unchanged";
    case Change::pruned:
      return "pruned";
    case Change::removed:
      return "removed";
    case Change::failed:
      return "failed";
  }
  return "unknown";
}

ObjectDiff compare_objects(const model::ObjectKey& key, const std::string& api_version,
                           const model::SourceLocation& location, const Json& live, const Json& would_be,
                           const CompareOptions& options) {
  ObjectDiff diff;
  diff.key = key;
  diff.api_version = api_version;
  diff.location = location;
  Json before = live.is_null() ? Json() : normalize(live);
  Json after = would_be.is_null() ? Json() : normalize(would_be);
  remove_ignored_fields(before, key, options.ignore_rules);
  remove_ignored_fields(after, key, options.ignore_rules);
  // Compare before masking, so a changed secret value still counts as a change.
  // An added or pruned object changes as a whole: the root pointer "".
  diff.changed_paths =
      before.is_null() || after.is_null() ? std::vector<std::string>{""} : changed_paths(before, after);
  mask_secret_pair(before, after);
  if (live.is_null()) {
    diff.change = Change::added;
  } else if (would_be.is_null()) {
    diff.change = Change::pruned;
  } else {
    diff.change = diff.changed_paths.empty() ? Change::unchanged : Change::changed;
  }
  diff.before = std::move(before);
  diff.after = std::move(after);
  return diff;
}

std::string render_unified(const ObjectDiff& diff, int context) {
  std::string before = diff.before.is_null() ? "" : model::to_yaml(diff.before);
  std::string after = diff.after.is_null() ? "" : model::to_yaml(diff.after);
  return unified_diff(before, after, context);
}

}  // namespace opctl::diff
