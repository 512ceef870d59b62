// A fake world for Cluster passes: the parent, its children as a runner
// would leave them after applying a ReconcileResult (listed children applied
// over live ones, keeping what others wrote; unlisted ones gone), a fixed
// clock and a predictable random source. Tests play kubelet and sidecar, and
// the instance managers' use of the primary Lease (play_lease).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "kinds/cluster/cluster_children.hpp"
#include "kinds/cluster/cluster_reconciler.hpp"
#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/kind_reconciler.hpp"
#include "kinds/kind_time.hpp"
#include "model/object.hpp"
#include "support/fake_clock.hpp"

namespace cluster_test {

using opctl::model::Json;

class FixedClock : public opctl::testing::FakeClock {
 public:
  FixedClock() { set_wall(*opctl::kinds::parse_time("2026-11-29T16:00:00Z")); }
};

class CountingRandom : public opctl::kinds::RandomSource {
 public:
  std::string token(std::size_t length) override {
    std::string text = "pw" + std::to_string(++calls);
    text.resize(length, 'x');
    return text;
  }
  int calls = 0;
};

inline Json cluster_resource(const std::string& name, Json spec) {
  return {{"apiVersion", "opctl.io/v1alpha1"},
          {"kind", "Cluster"},
          {"metadata", {{"name", name}, {"namespace", "shop"}, {"uid", "uid-1"}, {"generation", 1}}},
          {"spec", std::move(spec)}};
}

// A Cluster "db" of 1Gi volumes with `fields` added to its spec: what a test of a few spec fields starts
// from.
inline Json small_cluster(const Json& fields) {
  Json spec = {{"storage", {{"size", "1Gi"}}}};
  spec.update(fields);
  return cluster_resource("db", std::move(spec));
}

// The Pod a pass builds for that Cluster's first instance, as its primary.
inline Json small_cluster_primary_pod(const Json& fields) {
  using namespace opctl::kinds::cluster;
  ClusterSpec spec = parse_cluster_spec(small_cluster(fields));
  return build_pod(spec, pod_template(spec, spec.image_name), "db-1", "primary");
}

class World {
 public:
  explicit World(Json spec, std::string name = "db")
      : name_(std::move(name)),
        parent(cluster_resource(name_, std::move(spec))),
        reconciler(opctl::kinds::cluster::make_cluster_reconciler()) {}

  opctl::kinds::ReconcileResult pass() {
    if (managers_play_lease) play_lease();
    std::vector<Json> live;
    for (const auto& [key, child] : children)
      live.push_back(child);
    opctl::kinds::Observed observed{parent, live, related, finalizing};
    opctl::kinds::Context context{clock, random};
    last = reconciler->reconcile(observed, context);
    apply(last);
    return last;
  }

  // Passes until nothing is in progress, playing kubelet (every Pod Ready,
  // every Job complete) and the instance managers (the Lease).
  void settle(int max_passes = 40) {
    for (int i = 0; i < max_passes; ++i) {
      ready_all();
      complete_jobs();
      play_lease();
      pass();
      if (!progressing()) return;
    }
  }

  bool progressing() const { return condition("Progressing"); }
  bool condition(const std::string& type) const {
    for (const auto& c : last.conditions)
      if (c.type == type) return c.status;
    return false;
  }
  std::string reason(const std::string& type) const {
    for (const auto& c : last.conditions)
      if (c.type == type) return c.reason;
    return "";
  }
  std::string message(const std::string& type) const {
    for (const auto& c : last.conditions)
      if (c.type == type) return c.message;
    return "";
  }
  std::string status(const std::string& field) const { return parent["status"].value(field, ""); }
  std::string phase() const { return status("phase"); }

  bool has(const std::string& kind, const std::string& name) const {
    return children.count(kind + "/" + name) > 0;
  }
  Json& child(const std::string& kind, const std::string& name) { return children.at(kind + "/" + name); }
  Json& pod(const std::string& name) { return child("Pod", name); }
  std::vector<std::string> names(const std::string& kind) const {
    std::vector<std::string> out;
    for (const auto& [key, child] : children)
      if (child.value("kind", "") == kind) out.push_back(child["metadata"].value("name", ""));
    return out;
  }
  std::string role(const std::string& pod_name) {
    return pod(pod_name)["metadata"]["labels"].value("opctl.io/role", "");
  }
  std::string primary_pods() {
    std::string out;
    for (const auto& name : names("Pod"))
      if (role(name) == "primary") out += (out.empty() ? "" : ",") + name;
    return out;
  }
  std::string image(const std::string& pod_name) {
    return pod(pod_name)["spec"]["containers"][0].value("image", "");
  }

  // The instance managers: the Cluster's target takes a free Lease (a new
  // Cluster, or one freed by a primary that stopped), and a holder the pass
  // recorded as current hands it to a new target (a switchover).
  std::string lease_name() const { return name_ + "-primary"; }
  std::string lease_holder() const {
    auto found = children.find("Lease/" + lease_name());
    return found == children.end() ? "" : found->second.value("/spec/holderIdentity"_json_pointer, "");
  }
  void set_lease_holder(const std::string& holder) {
    if (!has("Lease", lease_name())) return;
    Json& lease = child("Lease", lease_name());
    if (holder.empty())
      lease["spec"].erase("holderIdentity");
    else
      lease["spec"]["holderIdentity"] = holder;
  }
  void play_lease() {
    if (!parent.contains("status") || !parent["status"].is_object()) return;
    std::string holder = lease_holder();
    std::string target = status("targetPrimary");
    std::string current = status("currentPrimary");
    if (target.empty() || !has("Pod", target)) return;
    if (holder.empty() || (holder == current && target != current)) set_lease_holder(target);
  }

  // Kubelet and sidecar.
  void set_ready(const std::string& pod_name, bool ready) {
    pod(pod_name)["status"] = {
        {"phase", "Running"},
        {"conditions", Json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}};
  }
  void ready_all() {
    for (auto& [key, child] : children)
      if (child.value("kind", "") == "Pod" && !child.contains("status"))
        set_ready(child["metadata"]["name"], true);
  }
  void annotate(const std::string& pod_name, const std::string& key, const std::string& value) {
    pod(pod_name)["metadata"]["annotations"][key] = value;
  }
  void complete_jobs(const std::string& type = "Complete") {
    for (auto& [key, child] : children)
      if (child.value("kind", "") == "Job" && !child.contains("status"))
        child["status"] = {
            {"conditions", Json::array({{{"type", type}, {"status", "True"}, {"message", "exit 1"}}})}};
  }
  void remove(const std::string& kind, const std::string& name) { children.erase(kind + "/" + name); }
  void set_spec(const std::string& field, Json value) { parent["spec"][field] = std::move(value); }

  std::string name_;
  Json parent;
  std::map<std::string, Json> children;
  std::vector<Json> related;
  bool finalizing = false;
  // The instance managers act on the Lease before every pass (off: a test moves it by hand).
  bool managers_play_lease = true;
  FixedClock clock;
  CountingRandom random;
  opctl::kinds::ReconcileResult last;
  std::unique_ptr<opctl::kinds::KindReconciler> reconciler;

 private:
  void apply(const opctl::kinds::ReconcileResult& result) {
    std::map<std::string, Json> next = result.keep_unlisted ? children : std::map<std::string, Json>{};
    for (const auto& desired : result.children) {
      std::string key = desired.value("kind", "") + "/" + desired["metadata"].value("name", "");
      auto live = children.find(key);
      bool create_only =
          desired["metadata"].value("annotations", Json::object()).value("opctl.io/create-only", "") ==
          "true";
      if (create_only && live != children.end()) {
        next[key] = live->second;
        continue;
      }
      Json merged = live == children.end() ? Json::object() : live->second;
      for (const auto& [field, value] : desired.items()) {
        if (field != "metadata") merged[field] = value;
      }
      for (const char* map : {"labels", "annotations"})
        if (desired["metadata"].contains(map))
          for (const auto& [k, v] : desired["metadata"][map].items())
            merged["metadata"][map][k] = v;
      if (merged["metadata"].contains("annotations"))
        merged["metadata"]["annotations"].erase("opctl.io/create-only");
      merged["metadata"]["name"] = desired["metadata"]["name"];
      merged["metadata"]["namespace"] = desired["metadata"].value("namespace", "shop");
      next[key] = merged;
    }
    children = std::move(next);
    Json status = result.status;
    Json conditions = Json::array();
    for (const auto& c : result.conditions)
      conditions.push_back({{"type", c.type},
                            {"status", c.status ? "True" : "False"},
                            {"reason", c.reason},
                            {"message", c.message}});
    status["conditions"] = conditions;
    parent["status"] = status;
    parent["metadata"]["finalizers"] = result.finalizers;
  }
};

inline Json three_instances() {
  return {{"instances", 3},
          {"imageName", "ghcr.io/cloudnative-pg/postgresql:16.4"},
          {"storage", {{"size", "1Gi"}}}};
}

}  // namespace cluster_test
