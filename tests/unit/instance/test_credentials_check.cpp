#include <catch2/catch.hpp>

#include "instance/credentials_check.hpp"

namespace opctl::instance {
namespace {

Credentials good() {
  return {"super-secret", "app", "app-password", "app", "replication-secret"};
}

TEST_CASE("a Secret value with a control character is refused, naming the Secret and key but not the value",
          "[instance]") {
  CHECK_FALSE(credentials_problem(good(), "db").has_value());
  Credentials newline = good();
  newline.app_password = "app-password\n";
  auto problem = credentials_problem(newline, "db");
  REQUIRE(problem.has_value());
  CHECK(problem->find("Secret db-app key password holds a control character") != std::string::npos);
  CHECK(problem->find("app-password") == std::string::npos);

  Credentials tab = good();
  tab.replication_password = "a\tb";
  REQUIRE(credentials_problem(tab, "pg").has_value());
  CHECK(credentials_problem(tab, "pg")->find("pg-replication key password") != std::string::npos);
  Credentials user = good();
  user.app_user = std::string("app\x7f");
  CHECK(credentials_problem(user, "db")->find("db-app key username") != std::string::npos);
  // Any other character is a password's own business: quotes, backslashes, spaces, UTF-8.
  Credentials odd = good();
  odd.superuser_password = "a 'b' \"c\" \\d :e \xc3\xa9";
  CHECK_FALSE(credentials_problem(odd, "db").has_value());
}

TEST_CASE("passwords are taken out of a message before it is published", "[instance]") {
  Credentials credentials = good();
  CHECK(without_passwords("FATAL: password app-password refused, super-secret too", credentials) ==
        "FATAL: password <redacted> refused, <redacted> too");
  CHECK(without_passwords("nothing secret", credentials) == "nothing secret");
  // A password that is part of the mark itself does not loop.
  credentials.app_password = "red";
  CHECK(without_passwords("red red", credentials) == "<redacted> <redacted>");
}

}  // namespace
}  // namespace opctl::instance
