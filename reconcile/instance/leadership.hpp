// Who may be the primary between passes: the decisions the instance manager
// takes about the Cluster's primary Lease, as pure functions of what it
// observed (its own PostgreSQL, the Lease, what its peers answered), so they
// are unit-tested without PostgreSQL, an API server or a clock.
//
// The rules (shared/HA-NOTES.md §4, after Patroni and CloudNativePG):
// - only the Lease's holder runs PostgreSQL writable; a holder that cannot
//   renew by its renew deadline is fenced (lease_keeper.hpp, write_deadline.hpp);
// - a candidate takes the Lease only when it is free (released) or expired as
//   timed here, from the moment this instance last saw it change, over the
//   holder's own leaseDurationSeconds, plus failoverDelay;
// - and only when no peer that answers is writable, none is ahead of it (a
//   newer timeline, or further on the same one), and, with synchronous
//   replication, enough of the published synchronous standbys answered that
//   one of them must hold every acknowledged commit (R + W > N).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "kinds/cluster/cluster_annotations.hpp"
#include "kinds/cluster/lsn.hpp"

namespace opctl::instance {

using kinds::cluster::Lsn;

// The timings of the primary Lease (spec.primaryLease). Invariant, checked at
// validation: renew_deadline + k_fence_margin <= duration, so a holder that
// stopped renewing is fenced before any candidate may take over, and
// retry_period * 2 <= renew_deadline, so a renewal is tried at least twice.
struct LeaseTimings {
  std::chrono::seconds duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::seconds retry_period{2};
};
// The watchdog's poll (100 ms) and an immediate stop of PostgreSQL, with room to spare.
inline constexpr std::chrono::seconds k_fence_margin{3};

// The synchronous standbys the holder last published on the Lease: every
// acknowledged commit is on at least `required` of `names`.
struct SyncQuorum {
  int required = 0;
  std::vector<std::string> names;
  bool operator==(const SyncQuorum&) const = default;
};

// The Lease as read: what the candidates time.
struct LeaseRecord {
  std::string holder;  // empty: free (released, or never held)
  std::string renew_time;
  int duration_seconds = 0;
  int transitions = 0;
  std::string resource_version;
  SyncQuorum quorum;     // opctl.io/synchronous-standbys
  std::string timeline;  // opctl.io/timeline: the holder's, when it last renewed

  // The same holding: the same holder with the same renewal.
  bool same_holding(const LeaseRecord& other) const {
    return holder == other.holder && renew_time == other.renew_time;
  }
};

// Times expiry locally, never by the holder's clock: a holding counts as
// expired once it has been seen unchanged for its duration.
class ExpiryTimer {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  // Records an observation made at `now`.
  void observe(const LeaseRecord& record, TimePoint now);
  // How long the holding has been seen expired (zero while it is not, or
  // before anything was observed). A free Lease counts as expired since it was seen free.
  std::chrono::milliseconds expired_for(TimePoint now) const;
  const std::optional<LeaseRecord>& last() const { return last_; }

 private:
  std::optional<LeaseRecord> last_;
  TimePoint changed_at_{};
};

// What a peer answered when asked, over SQL, whether it is in recovery and how far it got.
struct PeerAnswer {
  std::string name;
  bool answered = false;
  bool in_recovery = true;
  int timeline = 0;
  std::optional<Lsn> position;  // the furthest WAL it has (received, else replayed)
  // Its manager reported within the last 30 s (opctl.io/reported-at, which only
  // it may write): one that does not (it hangs) never takes the Lease, so it is
  // not preferred among equals; being further, it still holds a failover back.
  bool reporting = true;
};

struct CandidateView {
  std::string self;
  bool running_as_standby = false;  // this instance's PostgreSQL runs in recovery
  int timeline = 0;
  std::optional<Lsn> position;
  std::vector<PeerAnswer> peers;  // every other instance with a Pod, asked just now
  LeaseRecord lease;
  std::chrono::milliseconds expired_for{0};
  std::chrono::seconds failover_delay{0};
  std::string target_primary;  // the Cluster's status.targetPrimary: preferred among equals
  // The target is another instance whose Pod is listed and not being deleted:
  // a free Lease is left to it for one Lease duration (a Cluster started again).
  bool target_is_live_peer = false;
  // Stopped on purpose (opctl-cluster-kind(5)): a fenced primary keeps the
  // Lease until it is unfenced, and a hibernating Cluster has no primary to replace.
  kinds::cluster::FencedInstances fenced;
  bool hibernating = false;
};

struct Candidacy {
  bool take = false;
  std::string reason;  // why not (or why), for the instance's report
};

// Whether this instance should try to take the Lease now (the conditional
// write decides between candidates that all think so).
Candidacy consider_candidacy(const CandidateView& view);

// Is `a` further than `b`: a newer timeline, or further on the same one.
bool further(int timeline_a, const std::optional<Lsn>& a, int timeline_b, const std::optional<Lsn>& b);

}  // namespace opctl::instance
