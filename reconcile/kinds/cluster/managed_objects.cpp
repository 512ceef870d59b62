#include "kinds/cluster/managed_objects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "model/sha256.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;
using schema::Schema;

// A role, database, extension or schema name opctl creates: lowercase, so
// that psql users need no quotes; at most 63 bytes (NAMEDATALEN - 1).
constexpr const char* k_sql_name_pattern = "^[a-z_][a-z0-9_-]{0,62}$";
constexpr const char* k_sql_name_explanation = "a lowercase SQL name (a-z, 0-9, '_', '-'; at most 63)";
// Names PostgreSQL itself reserves for roles, and opctl's own roles.
constexpr const char* k_reserved_roles[] = {"postgres",     "streaming_replica", "public",      "none",
                                            "current_user", "session_user",      "current_role"};
constexpr const char* k_reserved_databases[] = {"postgres", "template0", "template1"};
// pg_encoding_to_char() of every server encoding (PostgreSQL's pg_wchar.h; client-only ones excluded).
constexpr const char* k_server_encodings[] = {
    "SQL_ASCII",     "EUC_JP",  "EUC_CN",  "EUC_KR",  "EUC_TW",     "EUC_JIS_2004", "UTF8",
    "MULE_INTERNAL", "LATIN1",  "LATIN2",  "LATIN3",  "LATIN4",     "LATIN5",       "LATIN6",
    "LATIN7",        "LATIN8",  "LATIN9",  "LATIN10", "WIN1256",    "WIN1258",      "WIN866",
    "WIN874",        "KOI8R",   "WIN1251", "WIN1252", "ISO_8859_5", "ISO_8859_6",   "ISO_8859_7",
    "ISO_8859_8",    "WIN1250", "WIN1253", "WIN1254", "WIN1255",    "WIN1257",      "KOI8U"};

std::string text_of(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

bool flag_of(const Json& object, const char* key, bool fallback) {
  return object.is_object() && object.contains(key) && object[key].is_boolean() ? object[key].get<bool>()
                                                                                : fallback;
}

const Json k_managed_no_list = Json::array();
const Json k_managed_nothing = Json::object();

const Json& list_of(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_array() ? object[key]
                                                                              : k_managed_no_list;
}

const Json& managed_of(const Json& spec) {
  return spec.is_object() && spec.contains("managed") && spec["managed"].is_object() ? spec["managed"]
                                                                                     : k_managed_nothing;
}

std::string uppercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

Schema sql_name(const std::string& what) {
  return Schema::string().describe(what).pattern(k_sql_name_pattern, k_sql_name_explanation);
}

Schema ensure_schema(const std::string& what) {
  return Schema::string().describe(what).enumerate({"present", "absent"}).default_value("present");
}

Schema role_schema() {
  auto flag = [](const char* what, bool fallback) {
    return Schema::boolean().describe(what).default_value(fallback);
  };
  return Schema::object()
      .describe("A role the primary creates, alters or drops (CloudNativePG's RoleConfiguration)")
      .field("name", sql_name("the role's name"), true)
      .field("ensure",
             ensure_schema("absent: the role is dropped (refused by PostgreSQL while it owns objects "
                           "or holds privileges: reported as cannotReconcile)"))
      .field("comment", Schema::string().describe("COMMENT ON ROLE; empty: none"))
      .field("login", flag("LOGIN: the role may connect", false))
      .field("superuser", flag("SUPERUSER", false))
      .field("createdb", flag("CREATEDB", false))
      .field("createrole", flag("CREATEROLE", false))
      .field("inherit", flag("INHERIT: it uses the privileges of the roles it is a member of", true))
      .field("replication", flag("REPLICATION", false))
      .field("bypassrls", flag("BYPASSRLS", false))
      .field("connectionLimit",
             Schema::integer().describe("CONNECTION LIMIT; -1: no limit").minimum(-1).default_value(-1))
      .field(
          "validUntil",
          Schema::string()
              .describe("VALID UNTIL: when the password stops working (RFC 3339); absent: never")
              .format("date-time")
              .pattern(
                  R"(^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$)",
                  "an RFC 3339 time such as 2027-01-01T00:00:00Z"))
      .field("inRoles",
             Schema::array(Schema::string().pattern("^[a-z_][a-z0-9_-]{0,62}$", k_sql_name_explanation))
                 .describe("the roles it is a member of, exactly: others are revoked"))
      .field("passwordSecret",
             Schema::object()
                 .describe("a Secret (kubernetes.io/basic-auth) in the Cluster's namespace whose password is "
                           "the role's; its username, when set, must be the role's name. A change of the "
                           "Secret is applied again")
                 .field("name", Schema::string().describe("the Secret's name"), true))
      .field("disablePassword",
             flag("PASSWORD NULL: the role has no password (excludes passwordSecret)", false));
}

Schema extension_schema() {
  return Schema::object()
      .describe("An extension of the database (CREATE EXTENSION)")
      .field("name", sql_name("the extension (its files must be in the image, e.g. pg_trgm, hstore)"), true)
      .field("ensure", ensure_schema("absent: DROP EXTENSION (without CASCADE)"))
      .field("version",
             Schema::string()
                 .describe("the version to create or update to; absent: the default, never updated")
                 .pattern("^[A-Za-z0-9._-]{1,63}$", "an extension version such as 1.6"))
      .field("schema", sql_name("the schema it is created in or moved to; absent: the default"));
}

Schema database_schema() {
  return Schema::object()
      .describe("A database the primary creates, alters or drops (CloudNativePG's Database kind)")
      .field("name", sql_name("the database's name"), true)
      .field("owner", sql_name("the role owning it (the application owner, a managed role, ...)"), true)
      .field("ensure", ensure_schema("absent: the database is dropped only with reclaimPolicy delete; with "
                                     "retain it is left as it is, data kept, and no longer managed"))
      .field("reclaimPolicy", Schema::string()
                                  .describe("what ensure: absent does: retain (keep the database and its "
                                            "data) or delete (DROP DATABASE)")
                                  .enumerate({"retain", "delete"})
                                  .default_value("retain"))
      .field("encoding", Schema::string()
                             .describe("ENCODING at creation (UTF8, LATIN1, ...); a database's encoding "
                                       "never changes: a different one is reported as cannotReconcile")
                             .check([](const Json& value) {
                               return value.is_string() && !is_server_encoding(value.get<std::string>())
                                          ? "not a PostgreSQL server encoding (UTF8, LATIN1, SQL_ASCII, ...)"
                                          : "";
                             }))
      .field("locale",
             Schema::string()
                 .describe("LOCALE at creation (C, C.UTF-8, en_US.UTF-8; it must exist in the image)")
                 .pattern("^[A-Za-z0-9_.@-]{1,63}$", "a locale name such as C.UTF-8"))
      .field("template", sql_name("the template at creation; absent: template1, or template0 when encoding "
                                  "or locale is set"))
      .field("extensions", Schema::array(extension_schema()).describe("extensions, applied in order"));
}

Json role_json(const ManagedRole& role) {
  return {{"name", role.name},
          {"present", role.present},
          {"comment", role.comment},
          {"login", role.login},
          {"superuser", role.superuser},
          {"createdb", role.createdb},
          {"createrole", role.createrole},
          {"inherit", role.inherit},
          {"replication", role.replication},
          {"bypassrls", role.bypassrls},
          {"connectionLimit", role.connection_limit},
          {"validUntil", role.valid_until},
          {"inRoles", role.in_roles},
          {"passwordSecret", role.password_secret},
          {"disablePassword", role.disable_password}};
}

Json database_json(const ManagedDatabase& database) {
  Json extensions = Json::array();
  for (const auto& extension : database.extensions)
    extensions.push_back({{"name", extension.name},
                          {"present", extension.present},
                          {"version", extension.version},
                          {"schema", extension.schema}});
  return {{"name", database.name},
          {"present", database.present},
          {"drop", database.drop_when_absent},
          {"owner", database.owner},
          {"encoding", database.encoding},
          {"locale", database.locale},
          {"template", database.template_name},
          {"extensions", extensions}};
}

void check_duplicates(const Json& list, const char* pointer, const char* field, const char* what,
                      std::vector<schema::Issue>& issues) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string name = text_of(list[i], "name");
    if (!name.empty() && !seen.insert(name).second)
      issues.push_back({fmt::format("{}/{}/name", pointer, i), fmt::format("{}[{}].name", field, i),
                        fmt::format("{} \"{}\" is declared twice", what, name)});
  }
}

void role_issues(const Json& roles, const std::string& owner, std::vector<schema::Issue>& issues) {
  check_duplicates(roles, "/spec/managed/roles", "spec.managed.roles", "role", issues);
  for (std::size_t i = 0; i < roles.size(); ++i) {
    const Json& role = roles[i];
    std::string name = text_of(role, "name");
    std::string at = fmt::format("/spec/managed/roles/{}", i);
    std::string field = fmt::format("spec.managed.roles[{}]", i);
    bool reserved = std::find(std::begin(k_reserved_roles), std::end(k_reserved_roles), name) !=
                    std::end(k_reserved_roles);
    if (reserved || name.rfind("pg_", 0) == 0 || (!name.empty() && name == owner))
      issues.push_back({at + "/name", field + ".name",
                        fmt::format("\"{}\" is reserved: {}", name,
                                    name == owner ? "opctl manages the application owner itself "
                                                    "(spec.bootstrap.initdb.owner)"
                                                  : "PostgreSQL's or opctl's own role")});
    if (role.is_object() && role.contains("passwordSecret") && flag_of(role, "disablePassword", false))
      issues.push_back({at + "/disablePassword", field + ".disablePassword",
                        "passwordSecret and disablePassword exclude each other"});
    const Json& in_roles = list_of(role, "inRoles");
    for (std::size_t j = 0; j < in_roles.size(); ++j)
      if (in_roles[j].is_string() && in_roles[j].get<std::string>() == name)
        issues.push_back({fmt::format("{}/inRoles/{}", at, j), fmt::format("{}.inRoles[{}]", field, j),
                          "a role cannot be a member of itself"});
  }
}

void database_issues(const Json& databases, const Json& roles, const std::string& app_database,
                     std::vector<schema::Issue>& issues) {
  check_duplicates(databases, "/spec/managed/databases", "spec.managed.databases", "database", issues);
  std::set<std::string> absent_roles;
  for (const auto& role : roles)
    if (text_of(role, "ensure") == "absent") absent_roles.insert(text_of(role, "name"));
  for (std::size_t i = 0; i < databases.size(); ++i) {
    const Json& database = databases[i];
    std::string name = text_of(database, "name");
    std::string at = fmt::format("/spec/managed/databases/{}", i);
    std::string field = fmt::format("spec.managed.databases[{}]", i);
    bool reserved = std::find(std::begin(k_reserved_databases), std::end(k_reserved_databases), name) !=
                    std::end(k_reserved_databases);
    if (reserved || (!name.empty() && name == app_database))
      issues.push_back({at + "/name", field + ".name",
                        fmt::format("\"{}\" is reserved: {}", name,
                                    reserved ? "PostgreSQL's own database"
                                             : "opctl manages the application database itself "
                                               "(spec.bootstrap.initdb.database)")});
    std::string owner = text_of(database, "owner");
    if (text_of(database, "ensure") != "absent" && absent_roles.contains(owner))
      issues.push_back({at + "/owner", field + ".owner",
                        fmt::format("role \"{}\" is declared absent (spec.managed.roles)", owner)});
    check_duplicates(list_of(database, "extensions"), (at + "/extensions").c_str(),
                     (field + ".extensions").c_str(), "extension", issues);
  }
}

}  // namespace

std::vector<std::string> reserved_names(const ManagedObjects& managed, const std::string& owner,
                                        const std::string& database) {
  std::vector<std::string> out;
  for (const auto& role : managed.roles) {
    bool reserved = std::find(std::begin(k_reserved_roles), std::end(k_reserved_roles), role.name) !=
                    std::end(k_reserved_roles);
    if (reserved || role.name.rfind("pg_", 0) == 0 || role.name == owner) out.push_back("role " + role.name);
  }
  for (const auto& item : managed.databases) {
    bool reserved = std::find(std::begin(k_reserved_databases), std::end(k_reserved_databases), item.name) !=
                    std::end(k_reserved_databases);
    if (reserved || item.name == database) out.push_back("database " + item.name);
  }
  return out;
}

bool is_server_encoding(const std::string& name) {
  std::string key = uppercase(name);
  return std::find(std::begin(k_server_encodings), std::end(k_server_encodings), key) !=
         std::end(k_server_encodings);
}

ManagedObjects managed_objects(const Json& spec) {
  ManagedObjects out;
  const Json& managed = managed_of(spec);
  for (const auto& item : list_of(managed, "roles")) {
    ManagedRole role;
    role.name = text_of(item, "name");
    role.present = text_of(item, "ensure") != "absent";
    role.comment = text_of(item, "comment");
    role.login = flag_of(item, "login", false);
    role.superuser = flag_of(item, "superuser", false);
    role.createdb = flag_of(item, "createdb", false);
    role.createrole = flag_of(item, "createrole", false);
    role.inherit = flag_of(item, "inherit", true);
    role.replication = flag_of(item, "replication", false);
    role.bypassrls = flag_of(item, "bypassrls", false);
    if (item.contains("connectionLimit") && item["connectionLimit"].is_number_integer())
      role.connection_limit = item["connectionLimit"].get<long>();
    role.valid_until = text_of(item, "validUntil");
    for (const auto& parent : list_of(item, "inRoles"))
      if (parent.is_string()) role.in_roles.push_back(parent.get<std::string>());
    if (item.contains("passwordSecret")) role.password_secret = text_of(item["passwordSecret"], "name");
    role.disable_password = flag_of(item, "disablePassword", false);
    out.roles.push_back(std::move(role));
  }
  for (const auto& item : list_of(managed, "databases")) {
    ManagedDatabase database;
    database.name = text_of(item, "name");
    database.present = text_of(item, "ensure") != "absent";
    database.drop_when_absent = text_of(item, "reclaimPolicy") == "delete";
    database.owner = text_of(item, "owner");
    database.encoding = uppercase(text_of(item, "encoding"));
    database.locale = text_of(item, "locale");
    database.template_name = text_of(item, "template");
    for (const auto& entry : list_of(item, "extensions")) {
      ManagedExtension extension;
      extension.name = text_of(entry, "name");
      extension.present = text_of(entry, "ensure") != "absent";
      extension.version = text_of(entry, "version");
      extension.schema = text_of(entry, "schema");
      database.extensions.push_back(std::move(extension));
    }
    out.databases.push_back(std::move(database));
  }
  return out;
}

std::string managed_hash(const ManagedObjects& managed) {
  Json roles = Json::array();
  for (const auto& role : managed.roles)
    roles.push_back(role_json(role));
  Json databases = Json::array();
  for (const auto& database : managed.databases)
    databases.push_back(database_json(database));
  return model::sha256_hex(Json{{"roles", roles}, {"databases", databases}}.dump()).substr(0, 16);
}

std::vector<std::string> password_secrets(const ManagedObjects& managed) {
  std::set<std::string> names;
  for (const auto& role : managed.roles)
    if (!role.password_secret.empty()) names.insert(role.password_secret);
  return {names.begin(), names.end()};
}

std::vector<schema::Issue> managed_issues(const Json& spec, const std::string& owner,
                                          const std::string& database) {
  std::vector<schema::Issue> issues;
  const Json& managed = managed_of(spec);
  role_issues(list_of(managed, "roles"), owner, issues);
  database_issues(list_of(managed, "databases"), list_of(managed, "roles"), database, issues);
  return issues;
}

Schema managed_schema() {
  return Schema::object()
      .describe(
          "Roles and databases the primary's instance manager keeps as declared (opctl-cluster-kind(5), "
          "MANAGED ROLES AND DATABASES)")
      .field("roles", Schema::array(role_schema()).describe("roles, applied in order"))
      .field("databases", Schema::array(database_schema()).describe("databases, applied after the roles"));
}

Schema managed_status_schema(const std::string& what) {
  auto names = [](const char* text) { return Schema::array(Schema::string()).describe(text); };
  return Schema::object()
      .describe("what the primary's manager did with spec.managed." + what)
      .field(
          "byStatus",
          Schema::object()
              .field("reconciled", names("as declared"))
              .field("removed", names("declared absent, and not there"))
              .field("retained", names("databases declared absent with reclaimPolicy retain, left in place"))
              .field("pending", names("not applied yet by the primary"))
              .field("cannotReconcile", names("PostgreSQL refused what was declared")))
      .field("cannotReconcile", Schema::map(Schema::string()).describe("why, by name"));
}

std::string ManagedReport::to_text() const {
  auto states = [](const std::map<std::string, ManagedState>& from) {
    Json out = Json::object();
    for (const auto& [name, state] : from) {
      Json entry = {{"state", state.state}};
      if (!state.reason.empty()) entry["reason"] = state.reason;
      out[name] = entry;
    }
    return out;
  };
  return Json{{"hash", hash}, {"roles", states(roles)}, {"databases", states(databases)}}.dump();
}

ManagedReport ManagedReport::parse(const std::string& text) {
  ManagedReport report;
  Json json = Json::parse(text, nullptr, false);
  if (!json.is_object()) return report;
  auto states = [&](const char* key, std::map<std::string, ManagedState>& into) {
    if (!json.contains(key) || !json[key].is_object()) return;
    for (const auto& [name, entry] : json[key].items())
      into[name] = {text_of(entry, "state"), text_of(entry, "reason")};
  };
  report.hash = text_of(json, "hash");
  states("roles", report.roles);
  states("databases", report.databases);
  return report;
}

Json managed_status(const std::map<std::string, ManagedState>& states) {
  Json by_status = Json::object();
  Json reasons = Json::object();
  for (const auto& [name, state] : states) {
    if (!by_status.contains(state.state)) by_status[state.state] = Json::array();
    by_status[state.state].push_back(name);
    if (state.state == k_state_cannot) reasons[name] = state.reason;
  }
  Json out = {{"byStatus", by_status}};
  if (!reasons.empty()) out["cannotReconcile"] = reasons;
  return out;
}

}  // namespace opctl::kinds::cluster
