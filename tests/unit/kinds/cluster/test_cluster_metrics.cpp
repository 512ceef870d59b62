// A Cluster's metrics read from its status in the shape the Cluster kind writes it (ClusterStatus::to_json
// and ClusterPass::instance_states; tests/e2e/test_metrics.py reads a real one) and from the Backups that
// name it.
#include <catch2/catch.hpp>

#include "kinds/cluster/cluster_metrics.hpp"

using opctl::kinds::cluster::cluster_metrics;
using opctl::model::Json;

namespace {

Json captured_cluster() {
  return Json::parse(R"({
    "apiVersion": "opctl.io/v1alpha1", "kind": "Cluster",
    "metadata": {"name": "db", "namespace": "shop"},
    "status": {
      "instances": 2, "readyInstances": 2, "instanceNames": ["db-1", "db-2"],
      "currentPrimary": "db-1", "targetPrimary": "db-1", "latestGeneratedNode": 2,
      "instanceStates": [
        {"name": "db-1", "ready": true, "role": "primary", "timeline": "1", "currentLsn": "0/3000148"},
        {"name": "db-2", "ready": true, "role": "replica", "timeline": "1", "receivedLsn": "0/3000148",
         "replayLsn": "0/3000060", "streaming": true, "lagBytes": 232}
      ],
      "phase": "Healthy"
    }
  })");
}

Json backup(const std::string& cluster, const std::string& last_success) {
  Json out = {{"metadata", {{"name", "nightly-" + cluster}, {"namespace", "shop"}}},
              {"spec", {{"cluster", cluster}}},
              {"status", Json::object()}};
  if (!last_success.empty()) out["status"]["lastSuccessfulTime"] = last_success;
  return out;
}

}  // namespace

TEST_CASE("a Cluster's instances, primary and each replica's lag come from its status", "[cluster_metrics]") {
  auto metrics = cluster_metrics(captured_cluster(), {});
  CHECK(metrics.namespace_name == "shop");
  CHECK(metrics.name == "db");
  CHECK(metrics.instances == 2);
  CHECK(metrics.ready_instances == 2);
  CHECK(metrics.primary == "db-1");
  REQUIRE(metrics.instance_states.size() == 2);
  CHECK(metrics.instance_states[0].name == "db-1");
  CHECK_FALSE(metrics.instance_states[0].lag_bytes);
  CHECK(metrics.instance_states[1].lag_bytes == 232u);
  CHECK_FALSE(metrics.last_backup);
}

TEST_CASE("a Cluster's last backup is the newest success of the Backups that name it", "[cluster_metrics]") {
  // given two Backups of db (one never succeeded) and one of another Cluster, we should take db's newest
  Json other = backup("other", "2026-12-04T23:00:00Z");
  auto metrics =
      cluster_metrics(captured_cluster(), {backup("db", "2026-12-04T01:00:00Z"), backup("db", ""), other});
  REQUIRE(metrics.last_backup);
  CHECK(std::chrono::duration_cast<std::chrono::seconds>(metrics.last_backup->time_since_epoch()).count() ==
        1796346000);
}

TEST_CASE("a new Cluster without a status reads as none ready and no primary", "[cluster_metrics]") {
  auto metrics = cluster_metrics(Json::parse(R"({"metadata": {"name": "db", "namespace": "shop"}})"), {});
  CHECK(metrics.instances == 0);
  CHECK(metrics.primary.empty());
  CHECK(metrics.instance_states.empty());
}
