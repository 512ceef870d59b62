#include "desired_set.hpp"

#include "apply/apply_pass.hpp"
#include "apply/ownership_marks.hpp"
#include "source/manifest_parser.hpp"

namespace opctl::cli {

DesiredSet load_desired_set(const CommonOptions& options) {
  DesiredSet set;
  auto desired = source::load_desired_source(options.source);
  set.revision = desired.revision;
  set.objects = source::parse_manifests(desired.files);
  set.connection = connect(options);
  apply::resolve_scopes(*set.connection.mapper, set.objects, set.connection.default_namespace(options));
  // Defaulting namespaces can make two objects the same one.
  if (auto duplicates = source::duplicate_problems(set.objects); !duplicates.empty())
    throw InvalidInputError(std::move(duplicates));
  apply::mark_managed(set.objects, set.revision.annotation());
  return set;
}

}  // namespace opctl::cli
