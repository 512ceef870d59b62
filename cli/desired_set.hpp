// The steps every cluster-facing command starts with: load the source,
// validate every manifest, connect, map kinds to resources, mark objects as
// opctl's. Nothing is sent that could change the cluster.
#pragma once

#include <vector>

#include "cluster_connection.hpp"
#include "common_options.hpp"
#include "model/object.hpp"
#include "source/desired_source.hpp"

namespace opctl::cli {

struct DesiredSet {
  source::SourceRevision revision;
  std::vector<model::Object> objects;
  ClusterConnection connection;
};

// Reads the source and validates it, without a cluster. An opctl.yaml found
// in the source is taken out of the manifests and applied to `options`;
// SOPS-encrypted files are decrypted in memory.
std::pair<source::SourceRevision, std::vector<model::Object>> load_manifests(CommonOptions& options);

// load_manifests, then connect and resolve scopes. Throws InvalidInputError
// (every problem at once) or a cluster error.
DesiredSet load_desired_set(CommonOptions& options);

// Once every check that reports a field's own line has run (validation, the
// custom kinds' checks): each object keeps its document's location, not the
// line of every field. At N = 5000 those tables are about a fifth of the
// desired set's memory, and nothing reads them after the checks.
void forget_field_lines(std::vector<model::Object>& objects);

// The second half of load_desired_set, for manifests already loaded:
// connect, then resolve_desired_set.
DesiredSet connect_desired_set(CommonOptions& options, source::SourceRevision revision,
                               std::vector<model::Object> objects);

// For a set already connected: gives namespaced objects the default
// namespace (cluster-scoped kinds none), then marks them as opctl's. Throws
// InvalidInputError when that makes two objects the same one.
void resolve_desired_set(const CommonOptions& options, DesiredSet& set);

}  // namespace opctl::cli
