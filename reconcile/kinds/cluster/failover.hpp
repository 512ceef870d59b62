// Which replica becomes the primary, ranked the way CloudNativePG ranks them
// (pkg/postgres/status.go): no reported error first, then the highest received
// LSN, then the highest replayed LSN, then the name. On top of the ranking,
// the rules that keep a failover from losing data: only a Ready replica can be
// promoted, never one that reports an error or whose report is stale, and
// never one whose position is unknown while another replica's is known.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kinds/cluster/lsn.hpp"

namespace opctl::kinds::cluster {

// What a replica reports about itself (Pod readiness and the sidecar's annotations).
struct ReplicaReport {
  std::string name;
  bool ready = false;
  std::string error;  // the sidecar's error annotation; empty when none
  std::optional<Lsn> received;
  std::optional<Lsn> replayed;
  // Why it must not be promoted although it looks Ready (its report is stale:
  // its manager hangs or its node is cut off); empty when nothing speaks against it.
  std::string unpromotable;

  bool lsn_known() const { return received.has_value() || replayed.has_value(); }
};

// True when `a` is the better candidate. An unknown LSN ranks below any known one.
bool ranks_before(const ReplicaReport& a, const ReplicaReport& b);

// The reports, best candidate first.
std::vector<ReplicaReport> rank_candidates(std::vector<ReplicaReport> reports);

struct Election {
  std::optional<std::string> winner;
  std::string reason;   // when there is no winner: NoReadyReplica, ReplicasReportErrors, UnknownReplicaLsn,
                        // UnpromotableReplicaAhead
  std::string message;  // for the status, naming the replicas involved
};

// Elects among every replica of the cluster (Ready or not: a replica that is not
// Ready cannot win, but its known LSN still forbids promoting one whose LSN is unknown).
Election elect_primary(const std::vector<ReplicaReport>& replicas);

}  // namespace opctl::kinds::cluster
