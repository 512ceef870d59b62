// -l over a set: desired objects are selected by the labels they declare,
// members no longer desired by their live labels, and a member still desired
// follows its desired object (a label removed in git is no prune).
#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "model/label_selector.hpp"
#include "plan/selection.hpp"

using opctl::model::Json;
using opctl::model::LabelSelector;
using opctl::model::Object;
using opctl::model::parse_label_selector;
using opctl::plan::selected_members;
using opctl::plan::selected_objects;

namespace {

Json labelled_config_map(const std::string& name, const Json& labels) {
  Json body = {
      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}, {"namespace", "shop"}}}};
  if (!labels.is_null()) body["metadata"]["labels"] = labels;
  return body;
}

std::vector<std::string> names(const std::vector<Json>& members) {
  std::vector<std::string> out;
  for (const auto& member : members)
    out.push_back(member["metadata"]["name"].get<std::string>());
  return out;
}

LabelSelector web() {
  return parse_label_selector("app=web", "--selector");
}

}  // namespace

TEST_CASE("selected_objects keeps the desired objects whose declared labels match", "[selection]") {
  // Given a web and a db ConfigMap and one without labels, we should keep the web one only.
  std::vector<Object> desired = {Object(labelled_config_map("web", {{"app", "web"}})),
                                 Object(labelled_config_map("db", {{"app", "db"}})),
                                 Object(labelled_config_map("bare", nullptr))};
  auto selected = selected_objects(desired, web());
  REQUIRE(selected.size() == 1);
  CHECK(selected.front().name() == "web");
  CHECK(selected_objects(desired, LabelSelector()).size() == 3);
}

TEST_CASE("selected_members follows the desired object, then the live labels", "[selection]") {
  // Given members: a desired web object whose live copy lost the label, a desired db object whose
  // live copy still says web, and two members gone from git (web and db), we should keep the first
  // (selected in git), drop the second (not selected in git), keep the gone web one and drop the
  // gone db one.
  std::vector<Object> desired = {Object(labelled_config_map("relabelled", {{"app", "web"}})),
                                 Object(labelled_config_map("moved-away", {{"app", "db"}}))};
  std::vector<Json> members = {labelled_config_map("relabelled", {{"app", "old"}}),
                               labelled_config_map("moved-away", {{"app", "web"}}),
                               labelled_config_map("gone-web", {{"app", "web"}}),
                               labelled_config_map("gone-db", {{"app", "db"}})};
  CHECK(names(selected_members(members, desired, web())) ==
        std::vector<std::string>{"relabelled", "gone-web"});
  CHECK(selected_members(members, desired, LabelSelector()).size() == 4);
}
