// The diff of one object as data: what would change, shown as normalised,
// masked before/after objects and the field paths that differ. Rendering
// (text, JSON, Markdown) is the CLI's job.
#pragma once

#include <string>
#include <vector>

#include "diff/ignore_rules.hpp"
#include "model/object.hpp"

namespace opctl::diff {

// `removed` only between two revisions of the source (compare_revisions):
// gone from the manifests, which a pass deletes only with --prune.
enum class Change { added, changed, unchanged, pruned, failed, removed };

const char* to_string(Change change);

struct ObjectDiff {
  model::ObjectKey key;
  std::string api_version;
  model::SourceLocation location;
  Change change = Change::unchanged;
  bool local_comparison = false;           // the server's dry run was not allowed; compared here
  model::Json before;                      // normalised, masked; null when added
  model::Json after;                       // normalised, masked; null when pruned
  std::vector<std::string> changed_paths;  // JSON pointers, sorted (see changed_paths())
  std::string error;                       // when the comparison itself failed
  std::string
      conflict;  // another field manager owns fields this apply would change (needs --force-conflicts)
};

struct CompareOptions {
  std::vector<IgnoreRule> ignore_rules;
};

// The JSON pointers (RFC 6901) at which `before` and `after` differ, sorted:
// the deepest field that changed, was added or was removed. Lists are matched
// by their longest common run of equal elements, so a removed list element is
// named by its index in `before`, an added or changed one by its index in
// `after`.
std::vector<std::string> changed_paths(const model::Json& before, const model::Json& after);

// Compares live (null when absent) with what it would become (null when it
// would be deleted), after normalising, ignoring and masking both.
ObjectDiff compare_objects(const model::ObjectKey& key, const std::string& api_version,
                           const model::SourceLocation& location, const model::Json& live,
                           const model::Json& would_be, const CompareOptions& options);

// The unified YAML diff of before and after.
std::string render_unified(const ObjectDiff& diff, int context = 3);

}  // namespace opctl::diff
