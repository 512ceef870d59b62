// What `opctl reconcile` says and decides when its set cannot be loaded and
// the set's live custom resources are kept running (keep_running.hpp).
#include <algorithm>
#include <catch2/catch.hpp>

#include "apply/applyset_store.hpp"
#include "keep_running.hpp"
#include "support/fake_apiserver.hpp"

using opctl::apply::Action;
using opctl::apply::ObjectOutcome;
using opctl::apply::PassReport;
using opctl::model::Json;
using opctl::model::Object;
namespace cli = opctl::cli;

namespace {

Object member(const std::string& kind, const std::string& name) {
  return Object(Json{{"apiVersion", "opctl.io/v1alpha1"},
                     {"kind", kind},
                     {"metadata", {{"name", name}, {"namespace", "shop"}}}});
}

ObjectOutcome outcome_of(const Object& object, Action action) {
  return {object.key(), object.api_version(), {}, 0, action, "", {}};
}

}  // namespace

TEST_CASE("the kept line counts the members the runner recorded, by kind, and the failed ones apart",
          "[keep_running]") {
  // Given two Clusters and a Backup of the set, of which one Cluster failed and the Backup was gone (no
  // outcome), and a child the runner created, we should count each kind once and leave the child out.
  auto db = member("Cluster", "db"), other = member("Cluster", "other"),
       nightly = member("Backup", "nightly");
  PassReport report;
  report.outcomes.push_back(outcome_of(db, Action::unchanged));
  report.outcomes.push_back(
      {{"", "Service", "shop", "db-rw"}, "v1", {}, 0, Action::created, "created by Cluster shop/db", {}});
  report.outcomes.push_back(outcome_of(other, Action::failed));
  CHECK(cli::kept_running_line({db, other, nightly}, report) ==
        "kept 1 Cluster running from its live spec; could not keep 1 Cluster running (see above)");

  report.outcomes.push_back(outcome_of(nightly, Action::unchanged));
  report.outcomes[2].action = Action::unchanged;
  CHECK(cli::kept_running_line({db, other, nightly}, report) ==
        "kept 1 Backup, 2 Clusters running from their live spec");
}

TEST_CASE("nothing is said when no member was recorded", "[keep_running]") {
  PassReport report;
  CHECK(cli::kept_running_line({member("Cluster", "db")}, report).empty());
  CHECK(cli::kept_running_line({}, report).empty());
}

TEST_CASE("the custom resources are kept running only for a set known without its source", "[keep_running]") {
  cli::CommonOptions options;
  options.set_named = true;
  options.config.name = "shop";
  // A git source that named the set only in an opctl.yaml it never delivered: which set is not known.
  CHECK_THAT(cli::why_not_keep_running(options), Catch::Contains("give -f"));
  options.source_config_checked = true;  // the source was read (a manifest was invalid)
  CHECK(cli::why_not_keep_running(options).empty());
  options.source_config_checked = false;
  options.config.file = "/etc/opctl/opctl.yaml";  // -f names it without the source
  CHECK(cli::why_not_keep_running(options).empty());

  options.keep_running = false;
  CHECK(cli::why_not_keep_running(options) == "--no-keep-running");
  options.keep_running = true;
  options.set_named = false;  // an unnamed set's members may come from other directories
  CHECK(cli::why_not_keep_running(options) == "the set has no name");
}

TEST_CASE("the set's custom resources are listed from its ApplySet inventory, namespace by namespace",
          "[keep_running]") {
  // Given a set whose parent records Clusters and ConfigMaps in shop and web, a Cluster of another set, and a
  // Cluster of the set, we should list only the set's Clusters, with one LIST per namespace (opctl install
  // grants no LIST across namespaces) and none of the ConfigMaps.
  opctl::testing::FakeApiServer server;
  server.serve({"opctl.io", "v1alpha1", "Cluster", "clusters", true});
  server.serve({"opctl.io", "v1alpha1", "Backup", "backups", true});
  opctl::kube::RestMapper mapper{server};
  opctl::kube::ApiClient client{server, mapper};
  opctl::plan::ApplySetParent parent{"opctl-shop", "ops"};
  auto registry = opctl::kinds::make_registry({});
  CHECK(cli::set_custom_resources(client, parent, registry).empty());  // never applied: no parent

  auto labelled = [&](const std::string& kind, const std::string& namespace_name, const std::string& set) {
    return Json{{"apiVersion", kind == "ConfigMap" ? "v1" : "opctl.io/v1alpha1"},
                {"kind", kind},
                {"metadata",
                 {{"name", "db"},
                  {"namespace", namespace_name},
                  {"labels", {{"applyset.kubernetes.io/part-of", set}}}}}};
  };
  server.store(labelled("Cluster", "shop", parent.id()));
  server.store(labelled("Cluster", "web", "applyset-other"));
  server.store(labelled("ConfigMap", "web", parent.id()));
  opctl::plan::ApplySetInventory inventory;
  inventory.group_kinds = {{"opctl.io", "Cluster"}, {"", "ConfigMap"}};
  inventory.namespaces = {"shop", "web"};
  opctl::apply::ApplySetStore(client, parent, "opctl/test").write(inventory, {});
  server.requests.clear();

  auto members = cli::set_custom_resources(client, parent, registry);
  REQUIRE(members.size() == 1);
  CHECK(members[0].key() == opctl::model::ObjectKey{"opctl.io", "Cluster", "shop", "db"});
  std::vector<std::string> lists;
  for (const auto& request : server.requests)
    if (request.method == "GET" && request.path.find("labelSelector=") != std::string::npos)
      lists.push_back(request.path.substr(0, request.path.find('?')));
  std::sort(lists.begin(), lists.end());
  CHECK(lists == std::vector<std::string>{"/apis/opctl.io/v1alpha1/namespaces/ops/clusters",
                                          "/apis/opctl.io/v1alpha1/namespaces/shop/clusters",
                                          "/apis/opctl.io/v1alpha1/namespaces/web/clusters"});
}
