#include "diff/revision_diff.hpp"

#include <map>

#include "diff/secret_masking.hpp"

namespace opctl::diff {

std::vector<ObjectDiff> compare_revisions(const std::vector<model::Object>& base,
                                          const std::vector<model::Object>& head,
                                          const CompareOptions& options) {
  struct Pair {
    const model::Object* base = nullptr;
    const model::Object* head = nullptr;
  };
  std::map<model::ObjectKey, Pair> pairs;
  for (const auto& object : base)
    pairs[object.key()].base = &object;
  for (const auto& object : head)
    pairs[object.key()].head = &object;
  std::vector<ObjectDiff> diffs;
  for (const auto& [key, pair] : pairs) {
    const model::Object& shown = pair.head ? *pair.head : *pair.base;
    // A Secret's stringData is stored as data: moving a value from one to the other changes nothing.
    model::Json before = pair.base ? fold_string_data(pair.base->body()) : model::Json();
    model::Json after = pair.head ? fold_string_data(pair.head->body()) : model::Json();
    diffs.push_back(compare_objects(key, shown.api_version(), shown.location(), before, after, options));
    if (diffs.back().change == Change::pruned) diffs.back().change = Change::removed;
  }
  return diffs;
}

}  // namespace opctl::diff
