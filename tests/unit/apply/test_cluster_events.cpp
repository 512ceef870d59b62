#include <catch2/catch.hpp>

#include "apply/cluster_events.hpp"

using opctl::apply::event_object;
using opctl::apply::EventSubject;

TEST_CASE("a pass's Event names the set's parent and keeps its message short", "[apply][events]") {
  EventSubject subject{"Secret", "opctl-prod", "opctl-system", "1234-uid"};
  auto event = event_object(subject, "Warning", "ReconcileFailed", std::string(3000, 'x'),
                            "2026-12-01T12:00:00Z", 0x1234abcd);
  CHECK(event["metadata"]["name"] == "opctl-prod.1234abcd");
  CHECK(event["metadata"]["namespace"] == "opctl-system");
  CHECK(event["involvedObject"]["kind"] == "Secret");
  CHECK(event["involvedObject"]["name"] == "opctl-prod");
  CHECK(event["involvedObject"]["uid"] == "1234-uid");
  CHECK(event["type"] == "Warning");
  CHECK(event["reason"] == "ReconcileFailed");
  CHECK(event["message"].get<std::string>().size() == 1024);
  CHECK(event["source"]["component"] == "opctl");
  CHECK(event["count"] == 1);
}
