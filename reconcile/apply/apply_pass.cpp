#include "apply/apply_pass.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

#include "model/error.hpp"
#include "apply/diff_pass.hpp"
#include "apply/live_state.hpp"
#include "diff/field_ownership.hpp"
#include "plan/apply_order.hpp"

namespace opctl::apply {
namespace {

using model::Json;
using model::Object;
using Clock = std::chrono::steady_clock;

// The scope a CRD in the desired set declares for each kind it serves.
std::map<model::GroupVersionKind, bool> scopes_from_crds(const std::vector<Object>& objects) {
  std::map<model::GroupVersionKind, bool> scopes;
  for (const auto& object : objects) {
    if (object.kind() != "CustomResourceDefinition") continue;
    const Json& spec = object.body().value("spec", Json::object());
    std::string group = spec.value("group", "");
    std::string kind = spec.contains("names") ? spec["names"].value("kind", "") : "";
    bool namespaced = spec.value("scope", "") == "Namespaced";
    for (const auto& version : spec.value("versions", Json::array()))
      scopes[{group, version.value("name", ""), kind}] = namespaced;
  }
  return scopes;
}

std::string resource_version(const Json& object) {
  return object.contains("metadata") ? object["metadata"].value("resourceVersion", "") : "";
}

bool crd_established(const Json& crd) {
  if (!crd.contains("status")) return false;
  for (const auto& condition : crd["status"].value("conditions", Json::array()))
    if (condition.value("type", "") == "Established" && condition.value("status", "") == "True") return true;
  return false;
}

class PassRunner {
 public:
  PassRunner(kube::ApiClient& client, std::vector<Object> objects, const PassOptions& options)
      : client_(client), objects_(std::move(objects)), options_(options) {}

  PassReport run() {
    auto started = Clock::now();
    auto groups = plan::order_for_apply(objects_);
    live_ = read_live_state(client_, objects_);
    bool stop = false;
    for (const auto& group : groups) {
      if (stop) {
        for (auto index : group.members) record(index, Action::failed, "not applied: an earlier group failed");
        continue;
      }
      stop = !apply_group(group.members);
      if (!stop && group.rank == plan::kind_rank({"apiextensions.k8s.io", "v1", "CustomResourceDefinition"}))
        stop = !wait_for_crds(group.members);
    }
    report_.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
    return std::move(report_);
  }

 private:
  std::optional<kube::ResourceInfo> resource_of(std::size_t index) {
    return client_.mapper().find(objects_[index].gvk());
  }

  // Applies one group concurrently; false when any member failed. Objects
  // whose apply would be a no-op (judged from live state) cost no request.
  bool apply_group(const std::vector<std::size_t>& members) {
    std::vector<std::size_t> sent;
    std::vector<kube::HttpRequest> applies;
    for (auto index : members) {
      Object& object = objects_[index];
      const Json* current = live_.find(object.key());
      carry_source_annotation(object, current);
      if (current != nullptr && diff::apply_is_noop(object.body(), *current, options_.apply.field_manager)) {
        applied_[index] = *current;
        record(index, Action::unchanged, "");
        continue;
      }
      auto info = resource_of(index);
      if (!info) {
        record(index, Action::failed, fmt::format("the server does not serve {} in {}", object.kind(),
                                                  object.api_version()));
        continue;
      }
      sent.push_back(index);
      applies.push_back(client_.apply_request(*info, object, options_.apply));
    }
    auto results = client_.execute(applies);
    for (std::size_t i = 0; i < sent.size(); ++i) {
      std::size_t index = sent[i];
      if (!results[i].ok()) {
        std::string message = results[i].status.describe();
        if (results[i].status.reason == kube::ApiReason::conflict)
          message += " (another field manager changed these fields: run with --force-conflicts to take them back, "
                     "or stop setting them in git)";
        record(index, Action::failed, message);
        continue;
      }
      applied_[index] = results[i].object;
      const Json* before = live_.find(objects_[index].key());
      if (before == nullptr) {
        record(index, Action::created, "");
      } else {
        bool changed = resource_version(*before) != resource_version(results[i].object);
        record(index, changed ? Action::configured : Action::unchanged, "");
      }
    }
    return std::all_of(members.begin(), members.end(), [&](std::size_t m) { return applied_.contains(m); });
  }

  // Custom resources of a CRD created in this pass can be applied only once
  // the CRD is Established and discovery serves its kind.
  bool wait_for_crds(const std::vector<std::size_t>& members) {
    auto deadline = Clock::now() + options_.crd_established_timeout;
    std::vector<std::size_t> pending;
    for (auto index : members)
      if (!crd_established(applied_[index])) pending.push_back(index);
    while (!pending.empty() && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::vector<kube::HttpRequest> gets;
      for (auto index : pending) gets.push_back(client_.get_request(*resource_of(index), "", objects_[index].name()));
      auto results = client_.execute(gets);
      std::vector<std::size_t> still;
      for (std::size_t i = 0; i < pending.size(); ++i)
        if (!results[i].ok() || !crd_established(results[i].object)) still.push_back(pending[i]);
      pending = std::move(still);
    }
    for (auto index : pending) {
      for (auto& outcome : report_.outcomes)
        if (outcome.key == objects_[index].key()) {
          outcome.action = Action::failed;
          outcome.message = "CustomResourceDefinition did not become Established in time";
        }
    }
    client_.mapper().invalidate();
    return pending.empty();
  }

  void record(std::size_t index, Action action, std::string message) {
    const Object& object = objects_[index];
    ObjectOutcome outcome{object.key(), object.api_version(), object.location(), action, std::move(message)};
    if (options_.on_outcome) options_.on_outcome(outcome);
    report_.outcomes.push_back(std::move(outcome));
  }

  kube::ApiClient& client_;
  std::vector<Object> objects_;
  const PassOptions& options_;
  LiveState live_;
  std::map<std::size_t, Json> applied_;
  PassReport report_;
};

}  // namespace

const char* to_string(Action action) {
  switch (action) {
    case Action::created: return "created";
    case Action::configured: return "configured";
    case Action::unchanged: return "unchanged";
    case Action::failed: return "failed";
  }
  return "unknown";
}

std::size_t PassReport::count(Action action) const {
  return static_cast<std::size_t>(
      std::count_if(outcomes.begin(), outcomes.end(), [&](const auto& outcome) { return outcome.action == action; }));
}

void resolve_scopes(kube::RestMapper& mapper, std::vector<Object>& objects, const std::string& default_namespace) {
  auto crd_scopes = scopes_from_crds(objects);
  std::vector<Problem> problems;
  for (auto& object : objects) {
    bool namespaced = false;
    if (auto info = mapper.find(object.gvk())) {
      namespaced = info->namespaced;
    } else if (auto found = crd_scopes.find(object.gvk()); found != crd_scopes.end()) {
      namespaced = found->second;
    } else {
      problems.push_back({object.location().file, object.line_of("/kind"), "kind",
                          fmt::format("the cluster does not serve kind \"{}\" in apiVersion \"{}\" and no "
                                      "CustomResourceDefinition in the manifests defines it",
                                      object.kind(), object.api_version())});
      continue;
    }
    if (namespaced && object.namespace_name().empty()) object.set_namespace(default_namespace);
    if (!namespaced && !object.namespace_name().empty()) object.body()["metadata"].erase("namespace");
  }
  if (!problems.empty()) throw InvalidInputError(std::move(problems));
}

PassReport run_apply_pass(kube::ApiClient& client, std::vector<Object> objects, const PassOptions& options) {
  return PassRunner(client, std::move(objects), options).run();
}

}  // namespace opctl::apply
