// Kubernetes Events on the set's ApplySet parent, one when a pass starts and
// one when it ends (applied, pruned, failed with the reason), so that
// `kubectl get events` tells each run's story without opctl, as Flux's and
// Argo CD's controllers do. Recording an Event never fails a pass: the first
// refusal (an RBAC without `create events`) is reported once as a warning.
#pragma once

#include <functional>
#include <string>

#include "kube/api_client.hpp"

namespace opctl::apply {

struct EventSubject {
  std::string kind = "Secret";
  std::string name;
  std::string namespace_name;
  std::string uid;
  std::string api_version = "v1";
};

class ClusterEvents {
 public:
  ClusterEvents(kube::ApiClient& client, std::function<void(const std::string&)> on_warning)
      : client_(client), on_warning_(std::move(on_warning)) {}

  // type: Normal or Warning; reason: CamelCase; message: shortened to 1 KiB.
  void record(const EventSubject& subject, const std::string& type, const std::string& reason,
              const std::string& message);

 private:
  kube::ApiClient& client_;
  std::function<void(const std::string&)> on_warning_;
  bool refused_ = false;
};

// The Event object itself (for tests): named <subject>.<hex nanoseconds>, like kubectl's.
model::Json event_object(const EventSubject& subject, const std::string& type, const std::string& reason,
                         const std::string& message, const std::string& now_rfc3339, long long nanoseconds);

}  // namespace opctl::apply
