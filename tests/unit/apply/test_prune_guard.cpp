// A CRD is not pruned while custom resources of other sets remain (deleting it
// would delete them), unless --prune-crds; the answer comes from one LIST.
#include <catch2/catch.hpp>

#include "../kube/fake_transport.hpp"
#include "apply/prune_guard.hpp"

using opctl::apply::prune_refusal;
using opctl::apply::PruneGuardOptions;
using opctl::kube::testing::FakeTransport;
using opctl::model::Json;

namespace {

struct PruneGuardFixture {
  FakeTransport server;
  opctl::kube::RestMapper mapper{server};
  opctl::kube::ApiClient client{server, mapper};
};

opctl::plan::PruneCandidate crd_candidate() {
  Json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", "gadgets.example.com"}}},
              {"spec",
               {{"group", "example.com"},
                {"scope", "Namespaced"},
                {"names", {{"plural", "gadgets"}, {"kind", "Gadget"}}},
                {"versions", Json::array({{{"name", "v1"}, {"served", true}, {"storage", true}}})}}}};
  return {crd, opctl::plan::key_of_live(crd), false, ""};
}

}  // namespace

TEST_CASE("a CRD whose custom resources of others remain is kept, naming them and --prune-crds",
          "[prune_guard]") {
  // Given a Gadget that is not in the set, we should refuse to prune its CRD and say which and how to force
  // it.
  PruneGuardFixture f;
  f.server.answer(
      "/apis/example.com/v1/gadgets", 200,
      R"({"kind":"GadgetList","metadata":{},"items":[{"metadata":{"name":"g1","namespace":"shop"}}]})");
  PruneGuardOptions options{"applyset-x-v1", false, false};
  auto reason = prune_refusal(f.client, crd_candidate(), options);
  CHECK_THAT(reason, Catch::Contains("Gadget shop/g1") && Catch::Contains("--prune-crds"));
  CHECK_THAT(f.server.requests.back().path,
             Catch::Contains("labelSelector=") && Catch::Contains("applyset-x-v1"));
  options.prune_crds = true;
  CHECK(prune_refusal(f.client, crd_candidate(), options).empty());
}

TEST_CASE("a CRD with no custom resources left, or whose kind is gone, may be pruned", "[prune_guard]") {
  PruneGuardFixture f;
  f.server.answer("/apis/example.com/v1/gadgets", 200, R"({"kind":"GadgetList","metadata":{},"items":[]})");
  CHECK(prune_refusal(f.client, crd_candidate(), {"applyset-x-v1", false, false}).empty());
  PruneGuardFixture gone;  // nothing scripted: 404
  CHECK(prune_refusal(gone.client, crd_candidate(), {"applyset-x-v1", false, false}).empty());
}

TEST_CASE("a PersistentVolumeClaim or a Cluster is pruned only with --prune-data or its own annotation",
          "[prune_guard]") {
  PruneGuardFixture f;
  Json claim = {{"apiVersion", "v1"},
                {"kind", "PersistentVolumeClaim"},
                {"metadata", {{"name", "data"}, {"namespace", "shop"}}}};
  Json cluster = {{"apiVersion", "opctl.io/v1alpha1"},
                  {"kind", "Cluster"},
                  {"metadata", {{"name", "db"}, {"namespace", "shop"}}}};
  PruneGuardOptions options{"applyset-x-v1", false, false, false};
  for (const Json& live : {claim, cluster}) {
    opctl::plan::PruneCandidate candidate{live, opctl::plan::key_of_live(live), false, ""};
    CHECK_THAT(prune_refusal(f.client, candidate, options),
               Catch::Contains("it holds data") && Catch::Contains("--prune-data") &&
                   Catch::Contains("opctl.io/prune-data: \"true\""));
    options.prune_data = true;
    CHECK(prune_refusal(f.client, candidate, options).empty());
    options.prune_data = false;
    candidate.live["metadata"]["annotations"] = {{"opctl.io/prune-data", "true"}};
    CHECK(prune_refusal(f.client, candidate, options).empty());
  }
  CHECK(f.server.requests.empty());  // decided from the object alone
}
