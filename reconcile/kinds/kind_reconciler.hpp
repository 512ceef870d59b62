// The operator inside the pass: one small interface every custom kind
// implements, in controller-runtime's spirit. A reconciler is a pure function
// from what it observes (the parent resource and the children it owns, plus
// related objects) to what should be (the children, the status) and whether
// another pass is needed. The runner (kinds/kind_runner) does the I/O: lists
// children, applies them with a controller ownerReference, deletes owned
// children no longer desired, and writes the status subresource.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/clock.hpp"
#include "model/error.hpp"
#include "model/object.hpp"

namespace opctl::kinds {

// Field manager for everything a kind reconciler writes (children, status,
// finalizers), kept apart from the `opctl` manager that applies the desired
// set so that one never removes the other's fields.
inline constexpr const char* k_controller_field_manager = "opctl-controller";
// Label on every child: the parent's uid, to list children in one request per kind.
inline constexpr const char* k_owner_uid_label = "opctl.io/owner-uid";
// Annotation on a desired child: create it when it does not exist, never
// update it (a Job, whose template is immutable). It still counts as listed.
// The runner strips it before applying.
inline constexpr const char* k_create_only_annotation = "opctl.io/create-only";
// Annotation a reconciler may set on an object in ReconcileResult::deletions:
// why it is deleted, for the run report (never written to the cluster).
inline constexpr const char* k_deletion_reason_annotation = "opctl.io/deletion-reason";

// Side effects a reconciler may need, behind interfaces so unit tests can fix
// them. The time is opctl::Clock (model/clock.hpp), as everywhere.

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  // `length` characters from [A-Za-z0-9], from a cryptographic source in production.
  virtual std::string token(std::size_t length) = 0;
};

std::unique_ptr<RandomSource> system_random();

struct Observed {
  model::Json parent;  // the live custom resource (with metadata.uid, generation, status)
  // Live objects labelled with the parent's uid, of the kinds child_kinds()
  // names. This includes objects another controller made from a template
  // the parent owns (a CronJob's Jobs carry the label from its jobTemplate);
  // only those whose controller ownerReference is the parent are "owned".
  std::vector<model::Json> children;
  std::vector<model::Json>
      related;              // live objects the kind asked for via related() (e.g. a Backup's Cluster)
  bool finalizing = false;  // parent has a deletionTimestamp
};

struct Context {
  const Clock& clock;
  RandomSource& random;
};

struct Condition {
  std::string type;  // Ready, Progressing, Degraded
  bool status = false;
  std::string reason;  // UpperCamelCase
  std::string message;
};

// Something a reconcile did that `kubectl describe` and `kubectl events`
// should tell (a failed instance Pod deleted): the runner records it as a
// Kubernetes Event on the parent. Recording never fails the round.
struct KindEvent {
  std::string type;    // Normal or Warning
  std::string reason;  // UpperCamelCase
  std::string message;
};

struct ReconcileResult {
  // Every child that should exist, as a full object to server-side apply
  // (apiVersion, kind, metadata.name, namespace defaults to the parent's).
  // The runner adds the ownerReference and the owner-uid label. Owned
  // children (controller ownerReference = the parent) that are not listed
  // here are deleted — unless `keep_unlisted`.
  std::vector<model::Json> children;
  bool keep_unlisted = false;  // set when the reconciler could not decide (errors): delete nothing
  // Observed objects to delete although the parent does not control them
  // (retention deleting Jobs a CronJob made), as the live objects; deleted
  // with a uid precondition, even when keep_unlisted is set. An owned child
  // listed here too is deleted once, with this entry's reason
  // (k_deletion_reason_annotation) in the run report (a failed Pod).
  std::vector<model::Json> deletions;
  // Events to record on the parent once the children are written.
  std::vector<KindEvent> events;
  // Status fields to write (the runner adds observedGeneration and conditions).
  model::Json status = model::Json::object();
  std::vector<Condition> conditions;
  // Finalizers the parent should carry (managed by k_controller_field_manager).
  std::vector<std::string> finalizers;
  // Another pass is needed (the next step waits on something), after at least this long.
  std::optional<std::chrono::seconds> requeue_after;
};

// A related object a kind needs to see, e.g. the Cluster a Backup names.
struct RelatedRef {
  model::GroupVersionKind gvk;
  std::string namespace_name;
  std::string name;
};

class KindReconciler {
 public:
  virtual ~KindReconciler() = default;
  virtual model::GroupVersionKind kind() const = 0;
  // The kinds of children to list (by the owner-uid label) before reconcile().
  virtual std::vector<model::GroupVersionKind> child_kinds() const = 0;
  // Related objects to read before reconcile(); default none.
  virtual std::vector<RelatedRef> related(const model::Json& /*parent*/) const { return {}; }
  // Whether reconcile() may return events (opctl install then grants `create events` in the parent's
  // namespace); default no.
  virtual bool records_events() const { return false; }
  virtual ReconcileResult reconcile(const Observed& observed, Context& context) = 0;
  // Spec problems of a resource as written in the manifests (opctl validate,
  // and before apply), with file:line from object.line_of().
  virtual std::vector<Problem> validate(const model::Object& object) const = 0;
  // Checks that need the whole desired set (references such as a Backup's
  // Cluster) and advice that does not make a set invalid; default none.
  struct SetFindings {
    std::vector<Problem> errors;
    std::vector<Problem> warnings;
  };
  virtual SetFindings check_in_set(const model::Object& /*object*/,
                                   const std::vector<model::Object>& /*desired*/) const {
    return {};
  }
  // The CustomResourceDefinition this kind is served by (opctl crds); null
  // for kinds whose CRD comes from elsewhere (hook kinds).
  virtual model::Json custom_resource_definition() const = 0;
};

}  // namespace opctl::kinds
