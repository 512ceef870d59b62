// spec.managed: the roles and databases a Cluster declares (CloudNativePG's
// spec.managed.roles, and its Database kind as spec.managed.databases). The
// pass validates them and grants the instances the password Secrets they
// name; the primary's instance manager (reconcile/instance/managed_sync)
// reads the same fields and applies them; both share the parsing, the hash
// and the report's format here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kinds/schema/schema.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

struct ManagedRole {
  std::string name;
  bool present = true;  // ensure: present | absent
  std::string comment;
  bool login = false;
  bool superuser = false;
  bool createdb = false;
  bool createrole = false;
  bool inherit = true;
  bool replication = false;
  bool bypassrls = false;
  long connection_limit = -1;
  std::string valid_until;            // RFC 3339; empty: no expiry
  std::vector<std::string> in_roles;  // the roles it is a member of, exactly
  std::string password_secret;        // a Secret with `password` (and `username` = name); empty: untouched
  bool disable_password = false;      // PASSWORD NULL

  bool operator==(const ManagedRole&) const = default;
};

struct ManagedExtension {
  std::string name;
  bool present = true;
  std::string version;  // empty: the default version, never updated
  std::string schema;   // empty: the default (the first of search_path), never moved

  bool operator==(const ManagedExtension&) const = default;
};

struct ManagedDatabase {
  std::string name;
  bool present = true;
  bool drop_when_absent = false;  // reclaimPolicy: delete (retain: an absent database is left as it is)
  std::string owner;
  std::string encoding;       // at creation only; empty: the template's
  std::string locale;         // at creation only; empty: the template's
  std::string template_name;  // empty: template1, or template0 when encoding or locale is set
  std::vector<ManagedExtension> extensions;

  bool operator==(const ManagedDatabase&) const = default;
};

struct ManagedObjects {
  std::vector<ManagedRole> roles;
  std::vector<ManagedDatabase> databases;

  bool empty() const { return roles.empty() && databases.empty(); }
  bool operator==(const ManagedObjects&) const = default;
};

// From a Cluster resource's spec (absent fields: defaults).
ManagedObjects managed_objects(const model::Json& spec);

// What the declaration is, in 16 hex digits: the primary reports the one it
// applied, the pass tells applied from pending with it.
std::string managed_hash(const ManagedObjects& managed);

// The Secrets the roles take their passwords from, sorted, each once: the
// instances may read exactly these (and the Cluster's own).
std::vector<std::string> password_secrets(const ManagedObjects& managed);

// Reserved names, duplicates, options that exclude each other, each with its
// pointer (so file:line names the very item). `owner` and `database` are the
// application's (spec.bootstrap.initdb), which opctl manages itself.
std::vector<schema::Issue> managed_issues(const model::Json& spec, const std::string& owner,
                                          const std::string& database);

// The reserved names `managed` declares ("role postgres", "database template1"), for the instance manager,
// which reads the live Cluster and must not act on a declaration the pass would refuse (one written with
// kubectl, say): ALTER ROLE postgres NOSUPERUSER would lock opctl out.
std::vector<std::string> reserved_names(const ManagedObjects& managed, const std::string& owner,
                                        const std::string& database);

// The server encodings PostgreSQL accepts for a database, as pg_encoding_to_char() names them.
bool is_server_encoding(const std::string& name);

schema::Schema managed_schema();
// status.managedRolesStatus and status.managedDatabasesStatus.
schema::Schema managed_status_schema(const std::string& what);

// Per role or database, what the primary's manager did with it.
inline constexpr const char* k_state_reconciled = "reconciled";  // as declared
inline constexpr const char* k_state_removed = "removed";        // absent, and not there
inline constexpr const char* k_state_retained = "retained";      // a database absent with retain: left there
inline constexpr const char* k_state_pending = "pending";        // not applied yet
inline constexpr const char* k_state_cannot = "cannotReconcile";

struct ManagedState {
  std::string state;   // one of the k_state_ values
  std::string reason;  // cannotReconcile: why (PostgreSQL's message, publishable)
  bool operator==(const ManagedState&) const = default;
};

// What the primary's manager reports on its Pod (opctl.io/managed-status), as JSON.
struct ManagedReport {
  std::string hash;  // managed_hash() of what it applied
  std::map<std::string, ManagedState> roles;
  std::map<std::string, ManagedState> databases;

  std::string to_text() const;
  // nullopt-like: an empty hash when the text is not a report.
  static ManagedReport parse(const std::string& text);
};

// The status of one list: {byStatus: {state: [names]}, cannotReconcile: {name: reason}}.
model::Json managed_status(const std::map<std::string, ManagedState>& states);

}  // namespace opctl::kinds::cluster
