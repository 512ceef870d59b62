// Writes a parent's children as its reconciler asked, through the same write
// path as the pass (apply/write_batch.hpp): server-side applies rank by rank
// (plan::kind_rank: ServiceAccounts and Secrets before the Pods that name
// them, or admission rejects the Pods), concurrently within a rank; then
// deletions of owned children no longer listed and of the explicit ones,
// each with its uid as precondition. Every child's outcome lands in the log.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "apply/write_batch.hpp"
#include "kinds/kind_reconciler.hpp"
#include "kinds/owned_objects.hpp"

namespace opctl::kinds {

struct ChildWriterOptions {
  std::string parent_label;  // "group/Kind namespace/name", in the outcomes' messages
  std::string delete_propagation = "Background";
  long wave = 0;                 // the parent's, for the outcomes
  bool report_unchanged = true;  // false after the first round: only changes are news
  std::function<bool()> stop_requested;
};

class ChildWriter {
 public:
  ChildWriter(kube::ApiClient& client, const ParentRef& parent, apply::OutcomeLog& log,
              ChildWriterOptions options)
      : client_(client), parent_(parent), log_(log), options_(std::move(options)) {}

  // `live` are the children listed by the owner-uid label.
  void write(const ReconcileResult& result, const std::vector<model::Json>& live);
  // True when a child could not be applied or deleted.
  bool failed() const { return failed_; }

 private:
  void apply_children(const ReconcileResult& result, const std::vector<model::Json>& live);
  void delete_children(const ReconcileResult& result, const std::vector<model::Json>& live);
  void record(const model::ObjectKey& key, const std::string& api_version, apply::Action action,
              std::string message);

  kube::ApiClient& client_;
  const ParentRef& parent_;
  apply::OutcomeLog& log_;
  ChildWriterOptions options_;
  std::set<model::ObjectKey> desired_;
  bool failed_ = false;
};

}  // namespace opctl::kinds
