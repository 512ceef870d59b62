// One document of everything a person on call asks about a Cluster (what
// `opctl cluster status` prints, as `kubectl cnpg status` does): the phase,
// who holds the primary Lease, every instance's role, WAL positions, lag and
// timeline as its manager reported them, replication slots and archiving as
// the primary reported them, the Backups, and the certificates in its Secrets.
// It is read from objects only (the Cluster, its children, its Backups):
// nothing here talks to PostgreSQL, so it works from a laptop without a route
// to the Pods.
#pragma once

#include <vector>

#include "kinds/kind_time.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

struct OverviewInputs {
  const model::Json* cluster = nullptr;  // the live Cluster
  std::vector<model::Json> children;     // its Pods, PVCs, Secrets, Jobs and Lease (by owner label)
  std::vector<model::Json> backups;  // every Backup of its namespace (those of other Clusters are skipped)
  TimePoint now;
};

// The document; its fields are listed in opctl-cluster(1). Secret values
// never appear in it: of a Secret only its name and the certificates it holds.
model::Json cluster_overview(const OverviewInputs& inputs);

}  // namespace opctl::kinds::cluster
