#include <catch2/catch.hpp>

#include "cluster_world.hpp"
#include "kinds/cluster/cluster_children.hpp"
#include "kinds/cluster/cluster_reconciler.hpp"
#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/cluster/managed_objects.hpp"
#include "model/yaml_document.hpp"

using cluster_test::small_cluster;
using cluster_test::three_instances;
using cluster_test::World;
using namespace opctl::kinds::cluster;
using opctl::model::Json;
using ManagedNames = std::vector<std::string>;

namespace {

ManagedNames managed_pointers(const Json& resource) {
  ManagedNames out;
  for (const auto& issue : check_cluster(resource))
    out.push_back(issue.pointer);
  return out;
}

const Json k_managed_example = {
    {"roles",
     {{{"name", "alice"},
       {"login", true},
       {"connectionLimit", 4},
       {"inRoles", {"pg_read_all_data", "readers"}},
       {"passwordSecret", {{"name", "alice-password"}}}},
      {{"name", "readers"}, {"comment", "read-only"}},
      {{"name", "old"}, {"ensure", "absent"}}}},
    {"databases",
     {{{"name", "shop"},
       {"owner", "alice"},
       {"encoding", "utf8"},
       {"extensions", {{{"name", "pg_trgm"}}, {{"name", "hstore"}, {"ensure", "absent"}}}}},
      {{"name", "archive"}, {"owner", "app"}, {"ensure", "absent"}, {"reclaimPolicy", "delete"}}}}};

}  // namespace

TEST_CASE("managed roles and databases are parsed with CloudNativePG's defaults", "[cluster][managed]") {
  // Given a declaration with some fields set, the parsed roles and databases should carry them and the
  // defaults.
  ManagedObjects managed = managed_objects(small_cluster({{"managed", k_managed_example}})["spec"]);
  REQUIRE(managed.roles.size() == 3);
  const ManagedRole& alice = managed.roles[0];
  CHECK(alice.login);
  CHECK(alice.inherit);
  CHECK_FALSE(alice.superuser);
  CHECK(alice.connection_limit == 4);
  CHECK(alice.in_roles == ManagedNames{"pg_read_all_data", "readers"});
  CHECK(alice.password_secret == "alice-password");
  CHECK(managed.roles[1].connection_limit == -1);
  CHECK(managed.roles[1].comment == "read-only");
  CHECK_FALSE(managed.roles[2].present);
  REQUIRE(managed.databases.size() == 2);
  CHECK(managed.databases[0].encoding == "UTF8");
  CHECK_FALSE(managed.databases[0].drop_when_absent);
  CHECK(managed.databases[0].extensions.size() == 2);
  CHECK_FALSE(managed.databases[0].extensions[1].present);
  CHECK(managed.databases[1].drop_when_absent);
  CHECK_FALSE(managed.databases[1].present);
  CHECK(password_secrets(managed) == ManagedNames{"alice-password"});
  CHECK(managed_pointers(small_cluster({{"managed", k_managed_example}})).empty());
}

TEST_CASE("reserved and repeated role names are refused, each at its own item", "[cluster][managed]") {
  // Given roles opctl or PostgreSQL own, or one declared twice, validation should point at each name.
  Json roles = {{{"name", "postgres"}},   {{"name", "streaming_replica"}},
                {{"name", "pg_monitor"}}, {{"name", "app"}},
                {{"name", "bob"}},        {{"name", "bob"}},
                {{"name", "Bad Name"}}};
  CHECK(managed_pointers(small_cluster({{"managed", {{"roles", roles}}}})) ==
        ManagedNames{"/spec/managed/roles/6/name", "/spec/managed/roles/5/name", "/spec/managed/roles/0/name",
                     "/spec/managed/roles/1/name", "/spec/managed/roles/2/name",
                     "/spec/managed/roles/3/name"});
  // The application owner is the one initdb created, whatever its name.
  Json bob_only = {{"roles", {{{"name", "bob"}}}}};
  Json owner_named_bob = small_cluster({{"managed", bob_only}});
  owner_named_bob["spec"]["bootstrap"] = {{"initdb", {{"owner", "bob"}}}};
  CHECK(managed_pointers(owner_named_bob) == ManagedNames{"/spec/managed/roles/0/name"});
}

TEST_CASE("role options that cannot hold are refused with their field", "[cluster][managed]") {
  Json roles = {{{"name", "a"}, {"connectionLimit", -2}},
                {{"name", "b"}, {"passwordSecret", {{"name", "b"}}}, {"disablePassword", true}},
                {{"name", "c"}, {"inRoles", {"c"}}},
                {{"name", "d"}, {"validUntil", "tomorrow"}},
                {{"name", "e"}, {"ensure", "gone"}}};
  CHECK(managed_pointers(small_cluster({{"managed", {{"roles", roles}}}})) ==
        ManagedNames{"/spec/managed/roles/0/connectionLimit", "/spec/managed/roles/3/validUntil",
                     "/spec/managed/roles/4/ensure", "/spec/managed/roles/1/disablePassword",
                     "/spec/managed/roles/2/inRoles/0"});
}

TEST_CASE("databases: reserved names, unknown encodings, extension names and absent owners are refused",
          "[cluster][managed]") {
  Json databases = {
      {{"name", "postgres"}, {"owner", "app"}},
      {{"name", "app"}, {"owner", "app"}},
      {{"name", "x"}, {"owner", "app"}, {"encoding", "KLINGON"}},
      {{"name", "y"}, {"owner", "gone"}, {"extensions", {{{"name", "Pg Trgm"}}}}},
      {{"name", "y"}},
      {{"name", "z"}, {"owner", "app"}, {"extensions", {{{"name", "hstore"}}, {{"name", "hstore"}}}}}};
  Json roles = {{{"name", "gone"}, {"ensure", "absent"}}};
  CHECK(managed_pointers(small_cluster({{"managed", {{"roles", roles}, {"databases", databases}}}})) ==
        ManagedNames{"/spec/managed/databases/2/encoding", "/spec/managed/databases/3/extensions/0/name",
                     "/spec/managed/databases/4", "/spec/managed/databases/4/name",
                     "/spec/managed/databases/0/name", "/spec/managed/databases/1/name",
                     "/spec/managed/databases/3/owner", "/spec/managed/databases/5/extensions/1/name"});
  CHECK(is_server_encoding("utf8"));
  CHECK(is_server_encoding("LATIN1"));
  CHECK_FALSE(is_server_encoding("UTF-16"));
}

TEST_CASE("the instances may read the password Secrets the roles name, and no other", "[cluster][managed]") {
  ClusterSpec spec = parse_cluster_spec(small_cluster({{"managed", k_managed_example}}));
  auto objects = build_instance_rbac(spec, "db-1");
  const Json& role = objects.at(1);
  REQUIRE(role["kind"] == "Role");
  Json secrets;
  for (const auto& rule : role["rules"])
    if (rule["resources"] == Json::array({"secrets"})) secrets = rule["resourceNames"];
  CHECK(secrets == Json::array({"db-app", "db-superuser", "db-replication", "db-server", "alice-password"}));
}

TEST_CASE("the managed hash follows the declaration, not how it is spelled", "[cluster][managed]") {
  Json spelled_out = k_managed_example;
  spelled_out["roles"][1]["inherit"] = true;
  spelled_out["roles"][1]["ensure"] = "present";
  CHECK(managed_hash(managed_objects(small_cluster({{"managed", spelled_out}})["spec"])) ==
        managed_hash(managed_objects(small_cluster({{"managed", k_managed_example}})["spec"])));
  Json changed = k_managed_example;
  changed["roles"][0]["connectionLimit"] = 5;
  CHECK(managed_hash(managed_objects(small_cluster({{"managed", changed}})["spec"])) !=
        managed_hash(managed_objects(small_cluster({{"managed", k_managed_example}})["spec"])));
}

TEST_CASE("status lists every declared name as pending until the primary reports this declaration",
          "[cluster][managed]") {
  // Given a settled Cluster that declares roles and databases, the pass should report them pending, then copy
  // the primary's report (reconciled, cannotReconcile with why) once it is for this declaration.
  World world(three_instances());
  world.settle();
  world.set_spec("managed", k_managed_example);
  world.pass();
  const Json& pending = world.parent["status"]["managedRolesStatus"];
  CHECK(pending["byStatus"]["pending"] == Json::array({"alice", "old", "readers"}));
  CHECK(world.parent["status"]["managedDatabasesStatus"]["byStatus"]["pending"] ==
        Json::array({"archive", "shop"}));

  ManagedReport report;
  report.hash = "stale";
  report.roles = {{"alice", {k_state_reconciled, ""}}};
  world.annotate("db-1", "opctl.io/managed-status", report.to_text());
  world.pass();
  CHECK(world.parent["status"]["managedRolesStatus"]["byStatus"]["pending"].size() == 3);

  report.hash = managed_hash(managed_objects(world.parent["spec"]));
  report.roles = {
      {"alice", {k_state_reconciled, ""}},
      {"readers", {k_state_reconciled, ""}},
      {"old", {k_state_cannot, "role \"old\" cannot be dropped because some objects depend on it"}}};
  report.databases = {{"shop", {k_state_reconciled, ""}}, {"archive", {k_state_removed, ""}}};
  world.annotate("db-1", "opctl.io/managed-status", report.to_text());
  world.pass();
  const Json& roles = world.parent["status"]["managedRolesStatus"];
  CHECK(roles["byStatus"]["reconciled"] == Json::array({"alice", "readers"}));
  CHECK(roles["byStatus"]["cannotReconcile"] == Json::array({"old"}));
  CHECK(roles["cannotReconcile"]["old"] ==
        "role \"old\" cannot be dropped because some objects depend on it");
  CHECK(world.parent["status"]["managedDatabasesStatus"]["byStatus"]["removed"] == Json::array({"archive"}));
  CHECK(world.phase() == "Healthy");

  world.parent["spec"].erase("managed");
  world.pass();
  CHECK_FALSE(world.parent["status"].contains("managedRolesStatus"));
  CHECK_FALSE(world.parent["status"].contains("managedDatabasesStatus"));
}

TEST_CASE("the manager's report reads back as it was written", "[cluster][managed]") {
  ManagedReport report;
  report.hash = "0123456789abcdef";
  report.roles = {{"a", {k_state_reconciled, ""}}, {"b", {k_state_cannot, "no"}}};
  report.databases = {{"d", {k_state_retained, ""}}};
  ManagedReport read = ManagedReport::parse(report.to_text());
  CHECK(read.hash == report.hash);
  CHECK(read.roles == report.roles);
  CHECK(read.databases == report.databases);
  CHECK(ManagedReport::parse("not json").hash.empty());
}

TEST_CASE("validate warns of a password Secret the manifests do not hold, at its line",
          "[cluster][managed]") {
  // Given a role whose passwordSecret is not in the set, validate should warn (a secrets operator may make
  // it), and say nothing once the set holds it.
  auto documents = opctl::model::parse_yaml_documents(
      "apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: db\n  namespace: shop\nspec:\n"
      "  imageName: localhost/opctl-postgresql:15\n  storage: {size: 1Gi}\n  managed:\n    roles:\n"
      "    - name: alice\n      passwordSecret:\n        name: alice-password\n",
      "db.yaml");
  REQUIRE(documents.size() == 1);
  opctl::model::Object cluster(documents.front().value, {"db.yaml", documents.front().line},
                               documents.front().field_lines);
  auto reconciler = make_cluster_reconciler("");
  auto secret_named = [](const std::string& name) {
    return opctl::model::Object(Json{
        {"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", name}, {"namespace", "shop"}}}});
  };
  // A set without any Secret manages its Secrets elsewhere: nothing to say.
  CHECK(reconciler->check_in_set(cluster, {cluster}).warnings.empty());
  auto without = reconciler->check_in_set(cluster, {cluster, secret_named("other")}).warnings;
  REQUIRE(without.size() == 1);
  CHECK(without[0].line == 13);
  CHECK(without[0].field == "spec.managed.roles[0].passwordSecret.name");
  CHECK(without[0].message.find("Secret \"alice-password\" is not in the manifests") != std::string::npos);
  CHECK(reconciler->check_in_set(cluster, {cluster, secret_named("alice-password")}).warnings.empty());
}
