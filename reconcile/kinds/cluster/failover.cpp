#include "kinds/cluster/failover.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace opctl::kinds::cluster {
namespace {

// -1 when a is ahead, 1 when b is, 0 when level; unknown is behind everything.
int compare_descending(const std::optional<Lsn>& a, const std::optional<Lsn>& b) {
  if (a == b) return 0;
  if (!b) return -1;
  if (!a) return 1;
  return *a > *b ? -1 : 1;
}

// The furthest position a replica reported (received, else replayed).
std::optional<Lsn> furthest(const ReplicaReport& report) {
  if (report.received && report.replayed) return std::max(*report.received, *report.replayed);
  return report.received ? report.received : report.replayed;
}

std::string describe_position(const ReplicaReport& report) {
  if (report.received) return "received " + report.received->to_string();
  if (report.replayed) return "replayed " + report.replayed->to_string();
  return "no LSN";
}

}  // namespace

bool ranks_before(const ReplicaReport& a, const ReplicaReport& b) {
  if (a.error.empty() != b.error.empty()) return a.error.empty();
  if (int order = compare_descending(a.received, b.received); order != 0) return order < 0;
  if (int order = compare_descending(a.replayed, b.replayed); order != 0) return order < 0;
  return a.name < b.name;
}

std::vector<ReplicaReport> rank_candidates(std::vector<ReplicaReport> reports) {
  std::sort(reports.begin(), reports.end(), ranks_before);
  return reports;
}

Election elect_primary(const std::vector<ReplicaReport>& replicas) {
  std::vector<ReplicaReport> ready;
  std::vector<std::string> held_back;
  for (const auto& replica : replicas) {
    if (replica.ready && replica.unpromotable.empty()) ready.push_back(replica);
    if (replica.ready && !replica.unpromotable.empty())
      held_back.push_back(replica.name + ": " + replica.unpromotable);
  }
  if (ready.empty())
    return {std::nullopt, "NoReadyReplica",
            held_back.empty() ? "no replica is Ready to be promoted"
                              : fmt::format("no replica can be promoted ({})", fmt::join(held_back, "; "))};
  auto ranked = rank_candidates(std::move(ready));
  const ReplicaReport& best = ranked.front();
  // A replica that cannot be promoted but last said it had more WAL than the
  // best candidate may hold commits the candidate lacks: wait for it rather
  // than lose them, until it reports again or is gone.
  const std::optional<Lsn> best_position = furthest(best);
  for (const auto& replica : replicas)
    if (replica.ready && !replica.unpromotable.empty() && best_position && furthest(replica) > best_position)
      return {
          std::nullopt, "UnpromotableReplicaAhead",
          fmt::format("{} cannot be promoted ({}) and last reported more WAL ({}) than the best candidate {} "
                      "({}); not promoting a replica that may lack acknowledged commits",
                      replica.name, replica.unpromotable, describe_position(replica), best.name,
                      describe_position(best))};
  if (!best.error.empty())
    return {std::nullopt, "ReplicasReportErrors",
            fmt::format("every Ready replica reports an error; the best, {}, reports: {}", best.name,
                        best.error)};
  if (!best.lsn_known()) {
    auto known = std::find_if(replicas.begin(), replicas.end(), [](const auto& r) { return r.lsn_known(); });
    if (known != replicas.end())
      return {std::nullopt, "UnknownReplicaLsn",
              fmt::format(
                  "{} is the best Ready replica but reports no LSN, while {} has {}; not promoting a replica "
                  "that may be behind",
                  best.name, known->name, describe_position(*known))};
  }
  return {best.name, "",
          fmt::format("{} is the most advanced Ready replica ({})", best.name, describe_position(best))};
}

}  // namespace opctl::kinds::cluster
