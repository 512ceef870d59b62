#include "validate/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "plan/apply_order.hpp"
#include "plan/kind_scopes.hpp"
#include "source/manifest_parser.hpp"
#include "validate/crd_schemas.hpp"
#include "validate/desired_index.hpp"
#include "validate/field_path.hpp"
#include "validate/kind_validator.hpp"
#include "validate/messages.hpp"
#include "validate/reference_checks.hpp"
#include "validate/schema_check.hpp"
#include "validate/schema_source.hpp"

namespace opctl::validate {
namespace {

using model::Object;
using plan::GroupKind;

// What is known about one kind, decided once for all its objects.
struct KindFacts {
  std::optional<bool> namespaced;  // nullopt: unknown (checks that need it are skipped)
  std::string unknown;             // why the kind does not exist; empty when it may
  // An error, except for opctl's own kinds, whose CRDs may just not be installed yet.
  Finding::Severity unknown_severity = Finding::Severity::error;
  std::string unknown_field = "kind";  // where that is reported
};

Finding error_at(const Object& object, const FieldPath& path, std::string message) {
  return {Finding::Severity::error,
          Problem{object.location().file, object.line_of(path.pointer), path.field, std::move(message)},
          object.key().to_string()};
}

std::string unserved_version_message(const plan::CrdKind& crd, const model::GroupVersionKind& gvk) {
  return fmt::format(
      "the CustomResourceDefinition in the manifests serves kind \"{}\" of group \"{}\" at {}, "
      "not at \"{}\"",
      gvk.kind, gvk.group, fmt::join(crd.versions, ", "), gvk.version);
}

std::string objects_phrase(std::size_t count) {
  return count == 1 ? "1 object" : fmt::format("{} objects", count);
}

class Validation {
 public:
  Validation(std::vector<Object>& objects, const ValidateOptions& options)
      : objects_(objects), options_(options), crd_kinds_(plan::crd_kinds(objects_)), crd_schemas_(objects_) {
    for (const auto& crd : options_.known_crds)
      if (auto defined = plan::crd_kind(crd)) known_kinds_.emplace(defined->kind, std::move(*defined));
  }

  ValidationReport run() {
    report_.objects = objects_.size();
    if (options_.schemas != nullptr) schemas_ = options_.schemas->load(group_versions());
    check_kinds();
    check_waves();
    check_schemas();
    DesiredIndex desired(objects_);
    add_all(reference_findings(desired));
    run_kind_validators(desired);
    for (const auto& [reason, count] : unchecked_)
      report_.notes.push_back(
          fmt::format("{}: {} not checked against a schema", reason, objects_phrase(count)));
    for (const auto& [reason, count] : checked_by_crd_)
      report_.notes.push_back(
          fmt::format("{}: {} checked against their CustomResourceDefinition's own schema instead", reason,
                      objects_phrase(count)));
    return std::move(report_);
  }

 private:
  // The group-versions whose documents may be needed. With the cluster, not
  // those of objects checked otherwise: a group whose CRD the set changes (or
  // another pass just changed) may have no document that holds still.
  std::set<std::string> group_versions() const {
    std::set<std::string> versions;
    for (const auto& object : objects_) {
      bool checked_otherwise = crd_schemas_.schema_for(object.gvk()) != nullptr || handled(object.gvk());
      if (!options_.cluster_scope || !checked_otherwise) versions.insert(object.api_version());
    }
    return versions;
  }

  const OpenApiDocument* document_for(const Object& object) const {
    auto found = schemas_.documents.find(object.api_version());
    return found == schemas_.documents.end() ? nullptr : found->second.get();
  }

  // The cluster's discovery, else the set's CRDs, else the schema document, else the built-in table.
  KindFacts facts_of(const Object& object) const {
    auto gvk = object.gvk();
    GroupKind kind{gvk.group, gvk.kind};
    auto crd = crd_kinds_.find(kind);
    auto known = known_kinds_.find(kind);
    // The set's CRD is applied before its resources and replaces the served one: a version it does not serve
    // would be refused by the API server halfway through the pass, whatever the cluster serves now.
    if (crd != crd_kinds_.end() && !crd->second.versions.empty() && !crd->second.defines(gvk))
      return {crd->second.namespaced, unserved_version_message(crd->second, gvk), Finding::Severity::error,
              "apiVersion"};
    if (options_.cluster_scope) {
      if (auto namespaced = options_.cluster_scope(gvk)) return {namespaced, ""};
      if (crd != crd_kinds_.end()) return {crd->second.namespaced, ""};
      if (known != known_kinds_.end())
        return {known->second.namespaced,
                fmt::format(
                    "the cluster does not serve kind \"{}\" in apiVersion \"{}\" yet: install opctl's CRDs "
                    "(opctl crds | kubectl apply --server-side -f -) before reconciling",
                    gvk.kind, gvk.api_version()),
                Finding::Severity::warning};
      return {std::nullopt, plan::unknown_kind_message(gvk)};
    }
    if (crd != crd_kinds_.end()) return {crd->second.namespaced, ""};
    if (known != known_kinds_.end()) return {known->second.namespaced, ""};
    if (const OpenApiDocument* document = document_for(object)) {
      if (auto namespaced = document->namespaced(gvk)) return {namespaced, ""};
      if (document->schema_for(gvk) == nullptr)
        return {std::nullopt, fmt::format("apiVersion \"{}\" has no kind \"{}\" (according to {}){}",
                                          gvk.api_version(), gvk.kind, document->origin(),
                                          did_you_mean(gvk.kind, document->kind_names(gvk.api_version())))};
    }
    return {plan::builtin_namespaced(kind), ""};
  }

  // Unknown kinds and scope mismatches; then namespaces are defaulted, which
  // can make two objects one.
  void check_kinds() {
    auto before = duplicate_places();
    for (auto& object : objects_) {
      model::PackedAfter packed(object);
      KindFacts facts = facts_of(object);
      if (!facts.unknown.empty()) {
        unknown_kinds_.insert(&object);
        auto finding = error_at(object, FieldPath::of(facts.unknown_field), facts.unknown);
        finding.severity = facts.unknown_severity;
        report_.findings.push_back(std::move(finding));
      }
      if (facts.namespaced == false && !object.namespace_name().empty())
        report_.findings.push_back(error_at(
            object, FieldPath::of("metadata.namespace"),
            fmt::format("{} is cluster-scoped and cannot have a namespace (remove metadata.namespace)",
                        object.kind())));
      if (facts.namespaced == true && object.namespace_name().empty() && !options_.default_namespace.empty())
        object.set_namespace(options_.default_namespace);
    }
    for (const auto& problem : source::duplicate_problems(objects_))
      if (!before.contains({problem.file, problem.line})) add_errors(report_, {problem});
  }

  // Where duplicates already are (reported while loading).
  std::set<std::pair<std::string, int>> duplicate_places() const {
    std::set<std::pair<std::string, int>> places;
    for (const auto& problem : source::duplicate_problems(objects_))
      places.insert({problem.file, problem.line});
    return places;
  }

  // The same rule the apply order uses (plan::order_for_apply).
  void check_waves() {
    for (const auto& object : objects_) {
      try {
        plan::order_for_apply({object});
      } catch (const InvalidInputError& error) {
        for (const auto& problem : error.problems())
          report_.findings.push_back({Finding::Severity::error, problem, object.key().to_string()});
      }
    }
  }

  // Against the set's CRD when it declares the kind, else the published
  // schema, else the cluster's CRD of the kind.
  void check_schemas() {
    std::vector<const Object*> unpublished;
    for (const auto& object : objects_) {
      // A custom kind's validator checks its spec, from the same source as its CRD.
      if (unknown_kinds_.contains(&object) || handled(object.gvk())) continue;
      model::PackedAfter packed(object);
      if (const model::Json* schema = crd_schemas_.schema_for(object.gvk())) {
        add_violations(object, check_schema(object.body(), *schema, crd_schemas_.document()));
        continue;
      }
      if (options_.schemas == nullptr) continue;
      const OpenApiDocument* document = document_for(object);
      const model::Json* schema = document != nullptr ? document->schema_for(object.gvk()) : nullptr;
      if (schema == nullptr) {
        unpublished.push_back(&object);
        continue;
      }
      add_violations(object, check_schema(object.body(), *schema, *document));
    }
    check_against_live_crds(unpublished);
  }

  // Objects the published documents have no schema for. Right after a CRD is
  // created or changed its group's document is missing, or old, or still
  // being rebuilt; the CRD itself already holds the schema the server will
  // check. A group with no CRD whose document did not settle leaves nothing
  // to check with: that is the source's error.
  void check_against_live_crds(const std::vector<const Object*>& objects) {
    CrdSchemas live(live_crds_of(objects), "the cluster's CustomResourceDefinitions");
    std::set<std::string> warned;
    for (const Object* object : objects) {
      auto unsettled = schemas_.unsettled.find(object->api_version());
      const model::Json* schema = live.schema_for(object->gvk());
      if (schema == nullptr) {
        if (unsettled != schemas_.unsettled.end()) throw ClusterError(unsettled->second);
        ++unchecked_[why_unpublished(*object)];
        continue;
      }
      model::PackedAfter packed(*object);
      add_violations(*object, check_schema(object->body(), *schema, live.document()));
      if (unsettled == schemas_.unsettled.end())
        ++checked_by_crd_[why_unpublished(*object)];
      else if (warned.insert(object->api_version()).second)
        report_.findings.push_back(unsettled_warning(object->api_version(), unsettled->second));
    }
  }

  // The cluster's CRD of each kind among `objects` that one serves.
  std::vector<Object> live_crds_of(const std::vector<const Object*>& objects) const {
    std::vector<Object> crds;
    if (!options_.live_crd) return crds;
    std::set<GroupKind> asked;
    for (const Object* object : objects) {
      auto gvk = object->gvk();
      if (!asked.insert({gvk.group, gvk.kind}).second) continue;
      if (auto crd = options_.live_crd(gvk)) crds.emplace_back(std::move(*crd));
    }
    return crds;
  }

  std::string why_unpublished(const Object& object) const {
    if (document_for(object) != nullptr)
      return fmt::format("no schema for kind {} in {}", object.kind(), object.api_version());
    auto missing = schemas_.missing.find(object.api_version());
    return fmt::format("no schema for apiVersion {} ({})", object.api_version(),
                       missing == schemas_.missing.end() ? "unknown" : missing->second);
  }

  // About the cluster, not a file: no file, no object.
  static Finding unsettled_warning(const std::string& group_version, const std::string& why) {
    return {Finding::Severity::warning,
            Problem{"", 0, "",
                    fmt::format("the cluster's OpenAPI document for {} did not settle ({}); its custom "
                                "resources were checked against their CustomResourceDefinitions' own "
                                "schemas instead",
                                group_version, why)},
            ""};
  }

  void add_violations(const Object& object, std::vector<Violation> violations) {
    for (auto& violation : violations) {
      report_.findings.push_back(error_at(object, violation.path, std::move(violation.message)));
      if (violation.warning) report_.findings.back().severity = Finding::Severity::warning;
    }
  }

  bool handled(const model::GroupVersionKind& gvk) const {
    return std::any_of(options_.kind_validators.begin(), options_.kind_validators.end(),
                       [&](const KindValidator* validator) { return validator->handles(gvk); });
  }

  void run_kind_validators(const DesiredIndex& desired) {
    for (const auto& object : objects_) {
      for (const KindValidator* validator : options_.kind_validators) {
        if (!validator->handles(object.gvk())) continue;
        model::PackedAfter packed(object);
        for (auto& finding : validator->validate(object, desired)) {
          if (finding.object.empty()) finding.object = object.key().to_string();
          report_.findings.push_back(std::move(finding));
        }
      }
    }
  }

  void add_all(std::vector<Finding> findings) {
    for (auto& finding : findings)
      report_.findings.push_back(std::move(finding));
  }

  std::vector<Object>& objects_;  // check_kinds() defaults their namespaces
  const ValidateOptions& options_;
  // By group and kind: a CRD's kind has one scope at every version.
  std::map<GroupKind, plan::CrdKind> crd_kinds_;
  CrdSchemas crd_schemas_;                          // of the CRDs in the set
  std::map<GroupKind, plan::CrdKind> known_kinds_;  // opctl's own kinds
  SchemaSet schemas_;
  std::set<const Object*> unknown_kinds_;
  std::map<std::string, std::size_t> unchecked_;  // why objects were not checked against a schema -> how many
  // why objects were checked against the cluster's CRDs, not a published schema -> how many
  std::map<std::string, std::size_t> checked_by_crd_;
  ValidationReport report_;
};

}  // namespace

std::string to_string(Finding::Severity severity) {
  return severity == Finding::Severity::error ? "error" : "warning";
}

std::size_t ValidationReport::count(Finding::Severity severity) const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(),
                    [&](const Finding& finding) { return finding.severity == severity; }));
}

ValidationReport validate_objects(std::vector<Object> objects, const ValidateOptions& options) {
  return validate_in_place(objects, options);
}

ValidationReport validate_in_place(std::vector<Object>& objects, const ValidateOptions& options) {
  ValidationReport report = Validation(objects, options).run();
  sort_findings(report);
  return report;
}

void add_errors(ValidationReport& report, const std::vector<Problem>& problems) {
  for (const auto& problem : problems)
    report.findings.push_back({Finding::Severity::error, problem, ""});
}

void sort_findings(ValidationReport& report) {
  std::stable_sort(report.findings.begin(), report.findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.problem.file, a.problem.line) < std::tie(b.problem.file, b.problem.line);
  });
}

model::Json report_to_json(const ValidationReport& report) {
  model::Json findings = model::Json::array();
  for (const auto& finding : report.findings)
    findings.push_back({{"severity", to_string(finding.severity)},
                        {"file", finding.problem.file},
                        {"line", finding.problem.line},
                        {"field", finding.problem.field},
                        {"message", finding.problem.message},
                        {"object", finding.object}});
  return {{"apiVersion", "opctl.io/v1alpha1"},
          {"kind", "ValidationReport"},
          {"summary",
           {{"objects", report.objects},
            {"errors", report.count(Finding::Severity::error)},
            {"warnings", report.count(Finding::Severity::warning)},
            {"valid", report.valid()}}},
          {"findings", findings},
          {"notes", report.notes}};
}

}  // namespace opctl::validate
