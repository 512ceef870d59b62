// A pinned set applies its pinned commit until unpinned, or until a new
// commit on its ref when the rollback asked for that; a pass refuses when the
// pin changed under it.
#include <catch2/catch.hpp>

#include "apply/set_pin.hpp"
#include "model/error.hpp"

using namespace opctl::apply;
using opctl::model::Json;

namespace {

SetPin pin_at(const std::string& commit, bool until_new_commit = false) {
  return {commit, "v1", "main", "head1", until_new_commit, "ann@laptop", "2026-12-04T22:00:00Z"};
}

Json parent_with(const SetPin& pin) {
  return {{"metadata", {{"annotations", {{k_pin_annotation, pin.to_json().dump()}}}}}};
}

}  // namespace

TEST_CASE("a pin round-trips through the parent's annotation", "[set_pin]") {
  auto read = SetPin::of(parent_with(pin_at("abc", true)));
  REQUIRE(read);
  CHECK(read->commit == "abc");
  CHECK(read->revision == "v1");
  CHECK(read->ref == "main");
  CHECK(read->ref_commit == "head1");
  CHECK(read->until_new_commit);
  CHECK(read->by == "ann@laptop");
  CHECK_FALSE(SetPin::of(std::nullopt));
  CHECK_FALSE(SetPin::of(Json{{"metadata", Json::object()}}));
  CHECK_FALSE(SetPin::parse("{\"commit\": \"\"}"));
  CHECK_FALSE(SetPin::parse("not json"));
}

TEST_CASE("a pinned set applies the pinned commit whatever the head is", "[set_pin]") {
  CHECK(decide_pin(std::nullopt, "head2").load_commit.empty());
  auto decision = decide_pin(pin_at("abc"), "head2");
  CHECK(decision.load_commit == "abc");
  CHECK_FALSE(decision.lift);
}

TEST_CASE("a pin until a new commit is lifted by a new head, not by the same one", "[set_pin]") {
  CHECK(decide_pin(pin_at("abc", true), "head1").load_commit == "abc");
  CHECK(decide_pin(pin_at("abc", true), "").load_commit == "abc");  // the head could not be read
  auto moved = decide_pin(pin_at("abc", true), "head2");
  CHECK(moved.lift);
  CHECK(moved.load_commit.empty());
}

TEST_CASE("the pin after a pass: kept, set by a rollback, or removed", "[set_pin]") {
  std::string found = pin_at("abc").to_json().dump();
  PinAction keep;
  CHECK(pin_after(found, keep) == found);
  PinAction pin{PinAction::Kind::pin, pin_at("def"), "", false};
  CHECK(SetPin::parse(pin_after(found, pin))->commit == "def");
  PinAction unpin{PinAction::Kind::unpin, {}, "abc", true};
  CHECK(pin_after(found, unpin).empty());
}

TEST_CASE("a pass that loaded its source before a rollback pinned the set refuses", "[set_pin]") {
  PinAction unpinned_when_loaded{PinAction::Kind::keep, {}, "", true};
  CHECK_NOTHROW(check_pin_unchanged(std::nullopt, unpinned_when_loaded, "ns/opctl-a"));
  try {
    check_pin_unchanged(parent_with(pin_at("abc")), unpinned_when_loaded, "ns/opctl-a");
    FAIL("a pin set in between must stop the pass");
  } catch (const opctl::Error& error) {
    CHECK(error.category() == opctl::ErrorCategory::lock_held);
    CHECK(std::string(error.what()).find("pinned at abc") != std::string::npos);
  }
  PinAction pinned_when_loaded{PinAction::Kind::keep, {}, "abc", true};
  CHECK_NOTHROW(check_pin_unchanged(parent_with(pin_at("abc")), pinned_when_loaded, "ns/opctl-a"));
  CHECK_THROWS(check_pin_unchanged(std::nullopt, pinned_when_loaded, "ns/opctl-a"));
  // A rollback pins whatever was there, and a caller that read no pin checks nothing.
  CHECK_NOTHROW(check_pin_unchanged(parent_with(pin_at("abc")), PinAction{PinAction::Kind::pin, {}, "", true},
                                    "ns/opctl-a"));
  CHECK_NOTHROW(check_pin_unchanged(parent_with(pin_at("abc")), PinAction{}, "ns/opctl-a"));
}
