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

// Throws InvalidInputError (every problem at once) or a cluster error.
DesiredSet load_desired_set(const CommonOptions& options);

}  // namespace opctl::cli
