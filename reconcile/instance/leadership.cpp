#include "instance/leadership.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace opctl::instance {
namespace {

std::string describe(int timeline, const std::optional<Lsn>& position) {
  return fmt::format("timeline {}, {}", timeline, position ? position->to_string() : "no WAL position");
}

}  // namespace

void ExpiryTimer::observe(const LeaseRecord& record, TimePoint now) {
  if (!last_ || !last_->same_holding(record)) changed_at_ = now;
  last_ = record;
}

std::chrono::milliseconds ExpiryTimer::expired_for(TimePoint now) const {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  if (!last_) return milliseconds(0);
  auto seen = duration_cast<milliseconds>(now - changed_at_);
  if (last_->holder.empty()) return seen;
  auto duration = std::chrono::seconds(std::max(last_->duration_seconds, 1));
  return seen > duration ? seen - duration : milliseconds(0);
}

bool further(int timeline_a, const std::optional<Lsn>& a, int timeline_b, const std::optional<Lsn>& b) {
  if (timeline_a != timeline_b) return timeline_a > timeline_b;
  if (!a) return false;
  return !b || *a > *b;
}

Candidacy consider_candidacy(const CandidateView& view) {
  if (view.hibernating)
    return {false, "the Cluster hibernates (opctl.io/hibernation: on): nobody takes the primary Lease"};
  if (view.fenced.fences(view.self)) return {false, "this instance is fenced (opctl.io/fenced-instances)"};
  // CloudNativePG's rule: a fenced primary is not failed over, whether its
  // Lease is held, expired (its Pod restarted while fenced) or freed.
  const std::string& primary = view.lease.holder.empty() ? view.target_primary : view.lease.holder;
  if (view.fenced.fences(primary))
    return {false,
            fmt::format("the primary {} is fenced (opctl.io/fenced-instances): no failover until it is "
                        "unfenced",
                        primary)};
  if (!view.running_as_standby) return {false, "PostgreSQL does not run as a standby here"};
  const LeaseRecord& lease = view.lease;
  if (!lease.holder.empty()) {
    if (view.expired_for.count() <= 0)
      return {false, fmt::format("the primary Lease is held by {}", lease.holder)};
    auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(view.failover_delay);
    if (view.expired_for < delay)
      return {false,
              fmt::format("the primary Lease of {} expired {}s ago; failing over after failoverDelay ({}s)",
                          lease.holder, view.expired_for.count() / 1000, view.failover_delay.count())};
  }
  if (lease.holder.empty() && view.target_is_live_peer && view.target_primary != view.self &&
      view.expired_for < std::chrono::seconds(std::max(lease.duration_seconds, 5)))
    return {false, fmt::format("the primary Lease is free; {} (the Cluster's primary) may take it first",
                               view.target_primary)};
  if (int published = std::atoi(lease.timeline.c_str()); published > view.timeline)
    return {false, fmt::format("this instance is on timeline {}, older than the primary's ({})",
                               view.timeline, published)};
  std::vector<std::string> equals = {view.self};
  std::vector<std::string> heard = {view.self};
  for (const auto& peer : view.peers) {
    if (!peer.answered) continue;
    heard.push_back(peer.name);
    if (!peer.in_recovery) return {false, fmt::format("{} answers as a writable primary", peer.name)};
    if (further(peer.timeline, peer.position, view.timeline, view.position))
      return {false,
              fmt::format("{} is further ({}) than this instance ({})", peer.name,
                          describe(peer.timeline, peer.position), describe(view.timeline, view.position))};
    if (peer.reporting && !further(view.timeline, view.position, peer.timeline, peer.position))
      equals.push_back(peer.name);
  }
  if (!view.position)
    for (const auto& peer : view.peers)
      if (peer.answered && peer.position)
        return {false, fmt::format("this instance has no WAL position while {} has {}", peer.name,
                                   peer.position->to_string())};
  // Among equals the Cluster's target is preferred, then the first name, so
  // that candidates which all answer agree on one.
  std::string preferred = std::count(equals.begin(), equals.end(), view.target_primary) > 0
                              ? view.target_primary
                              : *std::min_element(equals.begin(), equals.end());
  if (preferred != view.self)
    return {false, fmt::format("{} is as far as this instance and preferred", preferred)};
  if (const SyncQuorum& quorum = lease.quorum; quorum.required > 0) {
    int answered = 0;
    for (const auto& name : quorum.names)
      answered += static_cast<int>(std::count(heard.begin(), heard.end(), name) > 0);
    int needed = static_cast<int>(quorum.names.size()) - quorum.required + 1;
    if (answered < needed)
      return {false,
              fmt::format(
                  "only {} of the synchronous standbys ({}) answered, and each commit was acknowledged by "
                  "{}: {} must answer before one can be sure to hold every acknowledged commit",
                  answered, fmt::join(quorum.names, ", "), quorum.required, needed)};
  }
  return {true,
          fmt::format("the primary Lease is {}; this instance is the furthest of those that answer ({})",
                      lease.holder.empty() ? "free" : "expired (held by " + lease.holder + ")",
                      describe(view.timeline, view.position))};
}

}  // namespace opctl::instance
