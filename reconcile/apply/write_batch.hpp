// Sending writes and recording what they did: the one path the pass and the
// custom-kind runner take for every apply and delete, so an outcome means the
// same whoever wrote it.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apply/pass_report.hpp"
#include "kube/api_client.hpp"

namespace opctl::apply {

// Adds outcomes to a report as they happen and tells the listener (the
// progress lines), in that order.
class OutcomeLog {
 public:
  OutcomeLog(PassReport& report, std::function<void(const ObjectOutcome&)> listener)
      : report_(report), listener_(std::move(listener)) {}

  void record(ObjectOutcome outcome);
  PassReport& report() { return report_; }

 private:
  PassReport& report_;
  std::function<void(const ObjectOutcome&)> listener_;
};

// The kinds of one batch's writes or waits, each asked of discovery once: a
// batch is thousands of objects of one kind or a few, and asking for a kind
// the server does not serve reloads discovery. What find returns lives as
// long as this.
class BatchKinds {
 public:
  explicit BatchKinds(kube::RestMapper& mapper) : mapper_(mapper) {}
  // nullptr when the server does not serve the kind.
  const kube::ResourceInfo* find(const model::GroupVersionKind& gvk);

 private:
  kube::RestMapper& mapper_;
  std::map<model::GroupVersionKind, std::optional<kube::ResourceInfo>> found_;
};

// metadata.resourceVersion, "" when absent: it moves exactly when the server
// changed the object.
std::string resource_version(const model::Json& object);

struct WriteOutcome {
  Action action = Action::failed;
  std::string message;  // why it failed
};

// What a server-side apply's answer means: created when the object was
// absent (`before` null), configured when its resourceVersion moved,
// unchanged when the server changed nothing; failed with the server's reason.
WriteOutcome apply_outcome(const kube::ApiResult& result, const model::Json* before);

// A delete of `live` with its uid as precondition, so an object deleted and
// re-created under the same name by someone else is never deleted.
kube::HttpRequest guarded_delete(const kube::ApiClient& client, const kube::ResourceInfo& resource,
                                 const model::Json& live, const std::string& propagation);

// A delete's answer: pruned when the server accepted it or the object is
// already gone; failed with the server's reason.
WriteOutcome delete_outcome(const kube::ApiResult& result);

// Sends `count` writes k_write_chunk at a time: `make(i)` builds request i
// just before its chunk goes and `take(i, answer)` gets its answer right
// after, so a batch of 20,000 applies holds one chunk of bodies and answers,
// not a copy of the whole set. `stop` is asked before each chunk. Returns how
// many were sent: those from there on were not.
std::size_t stream_writes(kube::ApiClient& client, std::size_t count,
                          const std::function<kube::HttpRequest(std::size_t)>& make,
                          const std::function<void(std::size_t, kube::ApiResult&)>& take,
                          const std::function<bool()>& stop);

// stream_writes over requests built beforehand, for batches small enough to
// hold: the answers of the requests sent, in order, fewer than asked once
// stopped.
std::vector<kube::ApiResult> send_writes(kube::ApiClient& client,
                                         const std::vector<kube::HttpRequest>& requests,
                                         const std::function<bool()>& stop);

}  // namespace opctl::apply
