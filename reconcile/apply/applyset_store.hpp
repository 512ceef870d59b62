// Reads and writes the ApplySet parent Secret and lists the set's members,
// so prune deletes exactly what opctl applied earlier and nothing else.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kube/api_client.hpp"
#include "plan/applyset.hpp"

namespace opctl::apply {

inline constexpr const char* k_last_run_annotation = "opctl.io/last-run";
inline constexpr const char* k_last_success_annotation = "opctl.io/last-successful-run";

// The parent's run records, JSON texts ("" = none): the latest run whatever
// its result (interrupted included), the latest that succeeded, the
// history of runs and the pin. Every
// write of the parent carries both, or server-side apply would drop them.
struct RunRecords {
  std::string last_run;
  std::string last_success;
  std::string history;  // opctl.io/history (run_history.hpp)
  std::string pin;      // opctl.io/pinned (set_pin.hpp)

  static RunRecords of(const std::optional<model::Json>& parent);
};

class ApplySetStore {
 public:
  ApplySetStore(kube::ApiClient& client, plan::ApplySetParent parent, std::string tooling)
      : client_(client), parent_(std::move(parent)), tooling_(std::move(tooling)) {}

  const plan::ApplySetParent& parent() const { return parent_; }

  // The parent as it is live; nullopt when it does not exist yet. Throws
  // InvalidInputError when it belongs to another tool.
  std::optional<model::Json> read();

  // Server-side applies the parent with this inventory and these run
  // records; returns the parent as written. Throws ApiError on failure.
  model::Json write(const plan::ApplySetInventory& inventory, const RunRecords& records);

  // The source every later write records on the parent (opctl.io/set-source); "" records none.
  void record_source(std::string source) { source_ = std::move(source); }

  // Every live object labelled part of the set, in the group-kinds and
  // namespaces of `inventory` (cluster-scoped kinds cluster-wide). Each keeps
  // only what prune reads (apiVersion, kind, identity, uid, labels,
  // annotations, deletionTimestamp), cut as it is parsed; CRDs stay whole
  // (the prune guard lists what they serve), and so does a member for which
  // `keep_whole` says true (a prune preview shows what it deletes).
  std::vector<model::Json> members(const plan::ApplySetInventory& inventory,
                                   const std::function<bool(const model::Json&)>& keep_whole = {});

 private:
  kube::ApiClient& client_;
  plan::ApplySetParent parent_;
  std::string tooling_;
  std::string source_;
};

}  // namespace opctl::apply
