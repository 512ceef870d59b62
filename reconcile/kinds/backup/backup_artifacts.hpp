// What a finished backup Pod says about the backup volume. The Job's script
// writes, as its container's termination message, the manifest of the
// artifact it took and the artifacts left after retention (newest first, as
// many as fit in the 4096 bytes Kubernetes keeps). The reconciler cannot see
// the volume itself, so a Backup's status lists what its latest run saw.
#pragma once

#include <optional>

#include "kinds/kind_time.hpp"
#include "model/object.hpp"

namespace opctl::kinds::backup {

struct ArtifactReport {
  TimePoint finished{};   // when the backup container exited
  model::Json artifact;   // manifest.json of the artifact the run wrote
  model::Json artifacts;  // array of {name, method, pgMajor, endTime, sizeBytes}, newest first
  long count = 0;         // artifacts on the volume; more than artifacts.size() when the list was cut
};

// The report of a Pod whose backup container exited 0 with a well-formed
// termination message; nullopt for anything else (running, failed, or a Pod
// of an older opctl that wrote only the manifest).
std::optional<ArtifactReport> artifact_report(const model::Json& pod);

}  // namespace opctl::kinds::backup
