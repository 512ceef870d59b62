#include "apply/set_source.hpp"

#include <fmt/format.h>

#include "apply/deletion_listing.hpp"
#include "model/error.hpp"

namespace opctl::apply {

std::string recorded_set_source(const model::Json& parent) {
  const auto& metadata = parent.value("metadata", model::Json::object());
  return metadata.value("annotations", model::Json::object()).value(k_set_source_annotation, "");
}

SetSourceDecision decide_set_source(const std::optional<model::Json>& parent, const SetSourceCheck& check) {
  std::string recorded = parent ? recorded_set_source(*parent) : "";
  if (check.source.empty()) return {recorded, ""};  // a caller that knows no source checks nothing
  if (recorded.empty() || recorded == check.source || check.take_over) return {check.source, ""};
  if (check.prune) {
    std::string deleted = check.would_delete ? deletion_listing(check.would_delete()) : "its objects";
    throw InvalidInputError({Problem{
        "", 0, "--prune",
        fmt::format(
            "refusing to prune the set {}: it was last written from {}, and this run's source is {}; "
            "pruning would delete {}. Choose another --name for this source, or pass --take-over to make "
            "{} the set's source",
            check.set, recorded, check.source, deleted, check.source)}});
  }
  return {recorded,
          fmt::format("the set {} was last written from {}, not from this run's source {}; the objects "
                      "applied now join it, and a pruning pass from {} will delete those it does not hold",
                      check.set, recorded, check.source, recorded)};
}

}  // namespace opctl::apply
