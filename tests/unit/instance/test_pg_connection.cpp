#include <catch2/catch.hpp>

#include "instance/instance_error.hpp"
#include "instance/pg_connection.hpp"

namespace opctl::instance {
namespace {

TEST_CASE("a server message is published on one line, at most 500 characters", "[instance]") {
  CHECK(publishable_message("FATAL:  password authentication failed\nDETAIL:  x\r\n") ==
        "FATAL:  password authentication failed DETAIL:  x");
  CHECK(publishable_message("a\tb\x1b[31mc") == "a b [31mc");
  std::string long_text(1000, 'x');
  CHECK(publishable_message(long_text).size() == 500);
  CHECK(publishable_message(long_text).ends_with("..."));
}

TEST_CASE("a server that does not answer is an InstanceError naming what was asked", "[instance]") {
  ConnectionSettings settings;
  settings.host = "/nonexistent-socket-directory";
  settings.port = 1;
  settings.user = "postgres";
  CHECK_THROWS_WITH(PgConnection(settings, "the local server"),
                    Catch::Matchers::Contains("cannot connect to the local server"));
  CHECK_THROWS_AS(PgConnection(settings, "the local server"), InstanceError);
}

}  // namespace
}  // namespace opctl::instance
