#include "diff/object_diff.hpp"

#include <algorithm>
#include <set>

#include "diff/line_diff.hpp"
#include "diff/normalize.hpp"
#include "diff/secret_masking.hpp"
#include "model/yaml_document.hpp"

namespace opctl::diff {

using model::Json;

const char* to_string(Change change) {
  switch (change) {
    case Change::added: return "added";
    case Change::changed: return "changed";
    case Change::unchanged: return "unchanged";
    case Change::pruned: return "pruned";
    case Change::failed: return "failed";
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
  std::set<std::string> paths;
  if (!before.is_null() && !after.is_null())
    for (const auto& operation : Json::diff(before, after)) paths.insert(operation.value("path", ""));
  mask_secret_pair(before, after);
  diff.changed_paths.assign(paths.begin(), paths.end());
  if (live.is_null()) {
    diff.change = Change::added;
  } else if (would_be.is_null()) {
    diff.change = Change::pruned;
  } else {
    diff.change = paths.empty() ? Change::unchanged : Change::changed;
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
