// The set's Lease (opctl-<name>, beside its ApplySet parent), taken by every
// `opctl reconcile` that writes: the pass, and the custom kinds kept running
// when the set cannot be loaded.
#pragma once

#include <memory>

#include "apply/lease_lock.hpp"
#include "cluster_connection.hpp"
#include "common_options.hpp"
#include "plan/applyset.hpp"

namespace opctl::cli {

// Takes the Lease and makes every write of the connection's client check (and
// renew) it first, through the client's write gate; null when opctl.yaml turns
// the Lease off. Throws opctl::Error(lock_held) when another run holds it.
std::unique_ptr<apply::LeaseLock> lock_set(const CommonOptions& options, ClusterConnection& connection,
                                           const plan::ApplySetParent& parent);

}  // namespace opctl::cli
