#include "apply/prune_limits.hpp"

#include <fmt/format.h>

#include "apply/deletion_listing.hpp"
#include "model/error.hpp"

namespace opctl::apply {

void check_prune_volume(const PruneVolume& volume, const PruneLimits& limits) {
  std::size_t deleting = volume.would_delete.size();
  if (deleting == 0) return;
  if (volume.desired == 0) {
    if (limits.allow_empty) return;  // told the set is meant to be emptied: no share applies
    throw InvalidInputError({Problem{
        "", 0, "--prune",
        fmt::format("refusing to prune the set {}: this run's source yields no objects, and the set has {} "
                    "member{}; pruning would delete {}. A bad merge, a moved folder or a kustomization that "
                    "renders nothing looks like this. Pass --allow-empty (allowEmpty: true in opctl.yaml) if "
                    "the set is meant to be emptied",
                    volume.set, volume.members, volume.members == 1 ? "" : "s",
                    deletion_listing(volume.would_delete))}});
  }
  std::size_t allowed = limits.max_prune.allowed(volume.members);
  if (deleting <= allowed) return;
  throw InvalidInputError({Problem{
      "", 0, "--prune",
      fmt::format("refusing to prune the set {}: this pass would delete {} of its {} members, more than "
                  "--max-prune {} allows ({}); it would delete {}. Check the source; if the deletion is "
                  "meant, pass --max-prune {} (maxPrune in opctl.yaml) for this run",
                  volume.set, deleting, volume.members, limits.max_prune.to_string(), allowed,
                  deletion_listing(volume.would_delete), deleting)}});
}

}  // namespace opctl::apply
