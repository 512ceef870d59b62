#include <catch2/catch.hpp>

#include "apply/applyset_store.hpp"

using opctl::apply::RunRecords;
using opctl::model::Json;

TEST_CASE("the run records are read from the parent so every write can carry them", "[applyset_store]") {
  // Given a parent with both records, we should get both back; without a parent or records, none.
  Json parent = {{"metadata",
                  {{"annotations",
                    {{"opctl.io/last-run", R"({"result":"interrupted"})"},
                     {"opctl.io/last-successful-run", R"({"result":"succeeded"})"}}}}}};
  RunRecords records = RunRecords::of(parent);
  CHECK(records.last_run == R"({"result":"interrupted"})");
  CHECK(records.last_success == R"({"result":"succeeded"})");
  CHECK(RunRecords::of(std::nullopt).last_run.empty());
  CHECK(RunRecords::of(Json{{"metadata", Json::object()}}).last_success.empty());
}
