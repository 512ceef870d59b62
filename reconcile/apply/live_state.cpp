#include "apply/live_state.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>

#include "diff/trimmed_live.hpp"
#include "plan/apply_order.hpp"
#include "plan/kind_scopes.hpp"

namespace opctl::apply {
namespace {

using model::Json;
using model::Object;

model::ObjectKey key_of(const kube::ResourceInfo& info, const Json& object) {
  const auto& metadata = object["metadata"];
  return {info.gvk.group, info.gvk.kind, metadata.value("namespace", ""), metadata.value("name", "")};
}

void keep_managed_fields_of(Json& object, const std::string& manager) {
  if (manager.empty()) return;
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->contains("managedFields")) return;
  Json kept = Json::array();
  for (auto& entry : (*metadata)["managedFields"])
    if (entry.value("manager", "") == manager) kept.push_back(std::move(entry));
  (*metadata)["managedFields"] = std::move(kept);
}

// What of a live object the pass keeps: whole when asked, only its settled
// part when the pass leaves it unchanged, else trimmed. A CRD keeps its
// status (the pass waits for Established from it), and so does a custom
// kind's resource (`opctl status` shows it).
class LiveRecorder {
 public:
  LiveRecorder(const std::vector<Object>& desired, const LiveStateOptions& options)
      : desired_objects_(desired), options_(options) {
    for (std::size_t i = 0; i < desired.size(); ++i)
      desired_[desired[i].key()] = i;
  }

  bool desired(const kube::ResourceInfo& info, const Json& item) const {
    return desired_.contains(key_of(info, item));
  }

  // Cuts `item` down to what is kept; false when it is not kept as an object
  // (not desired, or settled).
  bool keep(const kube::ResourceInfo& info, Json& item) const {
    auto found = desired_.find(key_of(info, item));
    if (found == desired_.end() || already_settled(found->first)) return false;
    const Object& desired = desired_objects_[found->second];
    keep_managed_fields_of(item, options_.managed_fields_of);
    if (options_.keep_whole && options_.keep_whole(desired, item)) return true;
    bool keep_status =
        plan::is_crd(info.gvk) || (options_.keep_custom_resource_status && plan::is_custom_kind(info.gvk));
    if (!keep_status && options_.settles && options_.settles(desired, item)) {
      std::lock_guard lock(settled_mutex_);
      settled_[found->first] = plan::settled_object(item);
      if (options_.on_settled) options_.on_settled(found->second);
      return false;
    }
    diff::TrimOptions trim;
    trim.manager = options_.managed_fields_of;
    trim.keep_status = keep_status;
    for (const auto& rule : options_.ignore_rules)
      if (rule.matches(found->first))
        trim.ignored_pointers.insert(trim.ignored_pointers.end(), rule.json_pointers.begin(),
                                     rule.json_pointers.end());
    item = diff::trim_live(item, trim);
    return true;
  }

  void record(LiveState& state, const kube::ResourceInfo& info, Json item) const {
    if (!keep(info, item)) return;
    auto key = key_of(info, item);
    state.objects[key] = std::move(item);
  }

  // Read again (a LIST across namespaces redone per namespace): decided already.
  bool already_settled(const model::ObjectKey& key) const {
    std::lock_guard lock(settled_mutex_);
    return settled_.contains(key);
  }

  std::map<model::ObjectKey, plan::SettledObject> take_settled() {
    std::lock_guard lock(settled_mutex_);
    return std::move(settled_);
  }

 private:
  const std::vector<Object>& desired_objects_;
  const LiveStateOptions& options_;
  std::map<model::ObjectKey, std::size_t> desired_;  // index in desired_objects_
  // What keep() settled, taken once every LIST is read. ListOptions::keep_item
  // promises no thread, so LIST pages may be parsed concurrently.
  mutable std::mutex settled_mutex_;
  mutable std::map<model::ObjectKey, plan::SettledObject> settled_;
};

void get_each(kube::ApiClient& client, const kube::ResourceInfo& info,
              const std::vector<const Object*>& objects, const LiveRecorder& recorder,
              const LiveStateOptions& options, LiveState& state) {
  std::vector<kube::HttpRequest> requests;
  for (const auto* object : objects)
    requests.push_back(client.get_request(info, object->namespace_name(), object->name()));
  auto results = client.execute(requests);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& status = results[i].status;
    if (results[i].ok()) {
      recorder.record(state, info, std::move(results[i].object));
    } else if (options.record_forbidden && status.reason == kube::ApiReason::forbidden) {
      state.unreadable[objects[i]->key()] = status.describe();
    } else if (status.reason != kube::ApiReason::not_found) {
      throw kube::ApiError(status);
    }
  }
}

// The objects of one kind in one namespace that the set holds.
struct NamespaceObjects {
  std::string namespace_name;
  const std::vector<const Object*>* objects;
};

struct KindObjects {
  kube::ResourceInfo info;
  std::vector<NamespaceObjects> namespaces;
};

// A kind the set holds in this many namespaces or more is read with one LIST
// across all namespaces (as `kubectl get -A` reads it) rather than one per
// namespace: at 50 namespaces that is 1 request instead of 50.
constexpr std::size_t k_cluster_wide_from = 2;

// ... unless the first page of that LIST is mostly objects outside the set
// (a kind other teams hold many of, such as ConfigMaps): then the rest is
// read per namespace, and the cost of trying was one page.
constexpr std::size_t k_max_parsed_per_kept = 4;

// Secrets are always read per namespace: a LIST across namespaces would carry
// every Secret of the cluster, other teams' included, through opctl.
bool read_across_namespaces(const KindObjects& kind) {
  return kind.info.namespaced && kind.namespaces.size() >= k_cluster_wide_from &&
         !(kind.info.gvk.group.empty() && kind.info.gvk.kind == "Secret");
}

// What one LIST of a read stands for: a namespace of a kind, or the whole kind.
struct ListSlot {
  const KindObjects* kind;
  const NamespaceObjects* in_namespace;  // null: across all namespaces
  const std::size_t* desired_items;      // how many of the items read are the set's
};

class LiveReads {
 public:
  LiveReads(kube::ApiClient& client, const LiveRecorder& recorder, const LiveStateOptions& options,
            LiveState& state)
      : client_(client), recorder_(recorder), options_(options), state_(state) {}

  void read(const std::vector<KindObjects>& kinds) {
    for (const auto& kind : kinds) {
      if (read_across_namespaces(kind)) {
        add(kind, nullptr, 1, "");
        continue;
      }
      for (const auto& in_namespace : kind.namespaces)
        add(kind, &in_namespace, 0, "");
    }
    while (!targets_.empty()) {
      auto targets = std::move(targets_);
      auto slots = std::move(slots_);
      targets_.clear();
      slots_.clear();
      auto outcomes = client_.list_all(targets);
      for (std::size_t i = 0; i < outcomes.size(); ++i)
        take(slots[i], targets[i].options.max_pages > 0, outcomes[i]);
    }
  }

 private:
  void add(const KindObjects& kind, const NamespaceObjects* in_namespace, int max_pages,
           const std::string& continue_from) {
    std::size_t* desired_items = &desired_counts_.emplace_back(0);  // a deque: the address stays
    kube::ListOptions list;
    list.max_pages = max_pages;
    list.keep_item = [this, info = kind.info, desired_items](Json& item) {
      if (recorder_.desired(info, item)) ++*desired_items;  // kept or settled
      return recorder_.keep(info, item);
    };
    targets_.push_back({kind.info, in_namespace != nullptr ? in_namespace->namespace_name : "",
                        std::move(list), continue_from});
    slots_.push_back({&kind, in_namespace, desired_items});
  }

  void take(const ListSlot& slot, bool trial, kube::ListOutcome& outcome) {
    if (!outcome.ok()) {
      if (outcome.status.reason != kube::ApiReason::forbidden) throw kube::ApiError(outcome.status);
      if (slot.in_namespace != nullptr) {
        get_each(client_, slot.kind->info, *slot.in_namespace->objects, recorder_, options_, state_);
        return;
      }
      per_namespace(*slot.kind);  // RBAC that grants lists only in some namespaces
      return;
    }
    if (trial && !outcome.complete() &&
        outcome.parsed > k_max_parsed_per_kept * std::max<std::size_t>(*slot.desired_items, 1)) {
      per_namespace(*slot.kind);
      return;
    }
    for (auto& item : outcome.items) {
      auto key =
          key_of(slot.kind->info, item);  // before the move: Json's operator= takes its argument by value
      state_.objects[key] = std::move(item);
    }
    if (!outcome.complete()) add(*slot.kind, nullptr, 0, outcome.continue_token);
  }

  void per_namespace(const KindObjects& kind) {
    for (const auto& in_namespace : kind.namespaces)
      add(kind, &in_namespace, 0, "");
  }

  kube::ApiClient& client_;
  const LiveRecorder& recorder_;
  const LiveStateOptions& options_;
  LiveState& state_;
  std::vector<kube::ListTarget> targets_;
  std::vector<ListSlot> slots_;
  std::deque<std::size_t> desired_counts_;
};

}  // namespace

LiveState read_live_state(kube::ApiClient& client, const std::vector<Object>& desired,
                          const LiveStateOptions& options) {
  // (group, version, kind, namespace) -> the objects there
  std::map<std::pair<model::GroupVersionKind, std::string>, std::vector<const Object*>> wanted;
  for (const auto& object : desired)
    wanted[{object.gvk(), object.namespace_name()}].push_back(&object);
  std::vector<KindObjects> kinds;
  std::optional<model::GroupVersionKind> looked_up;
  bool served = false;
  for (const auto& [where, objects] : wanted) {
    if (looked_up != where.first) {  // `wanted` is sorted by kind: one lookup per kind
      looked_up = where.first;
      auto info = client.mapper().find(where.first);
      served = info.has_value();
      if (served) kinds.push_back({*info, {}});
    }
    if (served) kinds.back().namespaces.push_back({where.second, &objects});
  }
  LiveRecorder recorder(desired, options);
  LiveState state;
  LiveReads(client, recorder, options, state).read(kinds);
  state.settled = recorder.take_settled();
  return state;
}

}  // namespace opctl::apply
