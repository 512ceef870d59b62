#include <catch2/catch.hpp>

#include "kinds/conditions.hpp"
#include "kinds/owned_objects.hpp"
#include "kinds/schema/schema.hpp"

using opctl::model::Json;
using namespace opctl::kinds;

namespace {

ParentRef owner_parent() {
  return {"opctl.io/v1alpha1", "Backup", "shop", "nightly", "uid-1", 4};
}

}  // namespace

TEST_CASE("given a desired child, we stamp namespace, owner label and a controller ownerReference",
          "[kinds]") {
  Json child = {{"apiVersion", "batch/v1"},
                {"kind", "Job"},
                {"metadata", {{"name", "j"}, {"annotations", {{"opctl.io/create-only", "true"}}}}}};
  auto prepared = prepare_child(child, owner_parent());
  CHECK(prepared.problem.empty());
  CHECK(prepared.create_only);
  CHECK(prepared.body["metadata"]["namespace"] == "shop");
  CHECK(prepared.body["metadata"]["labels"]["opctl.io/owner-uid"] == "uid-1");
  CHECK_FALSE(prepared.body["metadata"].contains("annotations"));
  CHECK(prepared.body["metadata"]["ownerReferences"] == Json::array({{{"apiVersion", "opctl.io/v1alpha1"},
                                                                      {"kind", "Backup"},
                                                                      {"name", "nightly"},
                                                                      {"uid", "uid-1"},
                                                                      {"controller", true},
                                                                      {"blockOwnerDeletion", true}}}));
  CHECK(controlled_by(prepared.body, "uid-1"));
  CHECK_FALSE(controlled_by(prepared.body, "uid-2"));
}

TEST_CASE("given a child in another namespace, preparing it is a problem", "[kinds]") {
  Json child = {
      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}, {"namespace", "other"}}}};
  CHECK(prepare_child(child, owner_parent()).problem.find("parent's namespace shop") != std::string::npos);
}

TEST_CASE("the controller's finalizers are read from its managedFields entry", "[kinds]") {
  Json live = {
      {"metadata",
       {{"finalizers", {"a.io/x", "opctl.io/hook-finalizer"}},
        {"managedFields",
         {{{"manager", "opctl-controller"},
           {"operation", "Apply"},
           {"fieldsV1",
            {{"f:metadata",
              {{"f:finalizers",
                {{".", Json::object()}, {"v:\"opctl.io/hook-finalizer\"", Json::object()}}}}}}}},
          {{"manager", "opctl-controller"},
           {"operation", "Apply"},
           {"subresource", "status"},
           {"fieldsV1", {{"f:status", Json::object()}}}},
          {{"manager", "other"},
           {"operation", "Apply"},
           {"fieldsV1", {{"f:metadata", {{"f:finalizers", {{"v:\"a.io/x\"", Json::object()}}}}}}}}}}}}};
  CHECK(managed_finalizers(live, "opctl-controller") == std::set<std::string>{"opctl.io/hook-finalizer"});
  CHECK(finalizer_body(owner_parent(), {})["metadata"] ==
        Json{{"name", "nightly"}, {"namespace", "shop"}, {"uid", "uid-1"}});
}

TEST_CASE("conditions keep lastTransitionTime while their status holds", "[kinds]") {
  Json live = Json::array(
      {{{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2026-01-01T00:00:00Z"}},
       {{"type", "Degraded"}, {"status", "True"}, {"lastTransitionTime", "2026-01-01T00:00:00Z"}}});
  auto now = *parse_time("2026-02-02T00:00:00Z");
  Json merged = merge_conditions({{"Ready", true, "Scheduled", "ok"}, {"Degraded", false, "AsExpected", ""}},
                                 live, 7, now);
  CHECK(merged[0]["lastTransitionTime"] == "2026-01-01T00:00:00Z");
  CHECK(merged[0]["status"] == "True");
  CHECK(merged[0]["observedGeneration"] == 7);
  CHECK(merged[1]["lastTransitionTime"] == "2026-02-02T00:00:00Z");
  CHECK(merged[1]["status"] == "False");
}

TEST_CASE("times and ages parse and print the Kubernetes way", "[kinds]") {
  CHECK(format_time(*parse_time("2026-03-10T10:17:05.123456Z")) == "2026-03-10T10:17:05Z");
  CHECK(format_time(*parse_time("2026-03-10T12:17:05+02:00")) == "2026-03-10T10:17:05Z");
  CHECK_FALSE(parse_time("2026-03-10 nope"));
  CHECK(parse_age("1w2d") == std::chrono::seconds(9 * 86400));
  CHECK(parse_age("1h30m") == std::chrono::seconds(5400));
  CHECK_FALSE(parse_age("0d"));
  CHECK_FALSE(parse_age("7"));
  CHECK_FALSE(parse_age("7y"));
  CHECK(format_age(std::chrono::seconds(7 * 86400)) == "1w");
  CHECK(format_age(std::chrono::seconds(90)) == "90s");
}

TEST_CASE("the schema DSL checks types, required fields, enums and unknown fields", "[kinds][schema]") {
  using schema::Schema;
  auto spec = Schema::object()
                  .field("name", Schema::string().max_length(3), true)
                  .field("size", Schema::integer().minimum(1))
                  .field("mode", Schema::string().enumerate({"a", "b"}))
                  .field("tags", Schema::array(Schema::string()));
  std::vector<schema::Issue> issues;
  spec.validate(Json{{"name", "long"}, {"size", "big"}, {"mode", "c"}, {"tags", {"x", 1}}, {"extra", true}},
                "/spec", "spec", issues);
  std::vector<std::string> lines;
  for (const auto& issue : issues)
    lines.push_back(issue.pointer + " " + issue.field + ": " + issue.message);
  CHECK(lines == std::vector<std::string>{
                     "/spec/extra spec.extra: unknown field \"extra\" (known: name, size, mode, tags)",
                     "/spec/mode spec.mode: \"c\" is not one of a, b",
                     "/spec/name spec.name: must be at most 3 characters",
                     "/spec/size spec.size: must be an integer",
                     "/spec/tags/1 spec.tags[1]: must be a string",
                 });
  issues.clear();
  spec.validate(Json::object(), "/spec", "spec", issues);
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].field == "spec.name");
  CHECK(spec.openapi()["required"] == Json::array({"name"}));
}
