#include "instance/managed_sync.hpp"

#include <fmt/format.h>

#include <set>

#include "instance/instance_error.hpp"

namespace opctl::instance {
namespace {

using kinds::cluster::ManagedDatabase;
using kinds::cluster::ManagedRole;
using kinds::cluster::ManagedState;

// Runs again this long after a run that applied everything, or after one PostgreSQL refused something.
constexpr std::chrono::seconds k_managed_resync{60};
constexpr std::chrono::seconds k_managed_retry{10};

std::string bool_text(bool value) {
  return value ? "true" : "false";
}

std::string role_attributes(PgConnection& db, const ManagedRole& role) {
  auto flag = [](bool on, const char* name) { return fmt::format("{}{} ", on ? "" : "NO", name); };
  return fmt::format(
      "{}{}{}{}{}{}{}CONNECTION LIMIT {} VALID UNTIL {}", flag(role.login, "LOGIN"),
      flag(role.superuser, "SUPERUSER"), flag(role.createdb, "CREATEDB"), flag(role.createrole, "CREATEROLE"),
      flag(role.inherit, "INHERIT"), flag(role.replication, "REPLICATION"), flag(role.bypassrls, "BYPASSRLS"),
      role.connection_limit, db.literal(role.valid_until.empty() ? "infinity" : role.valid_until));
}

// The role exists with exactly these attributes ("t"), with others ("f"), or not at all ("").
std::string role_matches(PgConnection& db, const ManagedRole& role) {
  return db.value(R"SQL(
SELECT rolsuper = $2::bool AND rolinherit = $3::bool AND rolcreaterole = $4::bool AND rolcreatedb = $5::bool
   AND rolcanlogin = $6::bool AND rolreplication = $7::bool AND rolbypassrls = $8::bool
   AND rolconnlimit = $9::int
   AND coalesce(rolvaliduntil, 'infinity') = coalesce(nullif($10, '')::timestamptz, 'infinity')
  FROM pg_roles WHERE rolname = $1)SQL",
                  {role.name, bool_text(role.superuser), bool_text(role.inherit), bool_text(role.createrole),
                   bool_text(role.createdb), bool_text(role.login), bool_text(role.replication),
                   bool_text(role.bypassrls), std::to_string(role.connection_limit), role.valid_until});
}

void note_refusal(std::map<std::string, ManagedState>& states, const std::string& name,
                  const Error& failure) {
  ManagedState& state = states[name];
  if (state.state == kinds::cluster::k_state_cannot) return;  // the first refusal says why
  state = {kinds::cluster::k_state_cannot, publishable_message(failure.what())};
}

}  // namespace

void ManagedSync::forget() {
  applied_fingerprint_.clear();
  password_versions_.clear();
  report_.clear();
}

void ManagedSync::step(PgConnection& db, const Inputs& inputs) {
  const auto& managed = inputs.managed;
  if (managed.empty()) {
    report_.clear();
    applied_fingerprint_.clear();
    return;
  }
  std::string fingerprint = kinds::cluster::managed_hash(managed);
  for (const auto& [name, secret] : inputs.role_passwords)
    fingerprint += fmt::format(" {}={}{}", name, secret.version, secret.problem.empty() ? "" : "!");
  auto now = std::chrono::steady_clock::now();
  bool due = fingerprint != applied_fingerprint_ ||
             now - applied_at_ > (refused_ ? k_managed_retry : k_managed_resync);
  if (!due) return;
  States roles;
  States databases;
  for (const auto& role : managed.roles)
    roles[role.name] = {role.present ? kinds::cluster::k_state_reconciled : kinds::cluster::k_state_removed,
                        ""};
  std::vector<std::string> reserved;
  if (inputs.credentials)
    reserved = kinds::cluster::reserved_names(managed, inputs.credentials->app_user,
                                              inputs.credentials->app_database);
  for (const auto& database : managed.databases)
    if (!reserved.empty()) databases[database.name] = {};
  try {
    // Refused whole, as the pass refuses such a spec (this one was written around it): nothing half-applied.
    if (!reserved.empty())
      throw InstanceError(
          fmt::format("spec.managed names what opctl manages itself ({}): nothing of it is applied",
                      fmt::join(reserved, ", ")));
    run(db, inputs, roles, databases);
  } catch (const Error& failure) {
    // The server went away mid-run: whatever is not known to be done is not.
    for (auto* states : {&roles, &databases})
      for (auto& [name, state] : *states)
        if (state.state != kinds::cluster::k_state_cannot) note_refusal(*states, name, failure);
  }
  refused_ = false;
  for (const auto* states : {&roles, &databases})
    for (const auto& [name, state] : *states)
      if (state.state == kinds::cluster::k_state_cannot) refused_ = true;
  kinds::cluster::ManagedReport report;
  report.hash = kinds::cluster::managed_hash(managed);
  report.roles = std::move(roles);
  report.databases = std::move(databases);
  report_ = report.to_text();
  applied_fingerprint_ = fingerprint;
  applied_at_ = now;
}

void ManagedSync::run(PgConnection& db, const Inputs& inputs, States& roles, States& databases) {
  const auto& managed = inputs.managed;
  // Every present role first, so that memberships and owners can name roles declared after them.
  for (const auto& role : managed.roles) {
    if (!role.present) continue;
    try {
      apply_role(db, role);
    } catch (const InstanceError& failure) {
      note_refusal(roles, role.name, failure);
    }
  }
  for (const auto& role : managed.roles) {
    if (!role.present || roles[role.name].state == kinds::cluster::k_state_cannot) continue;
    try {
      apply_memberships(db, role);
      apply_password(db, role, inputs);
    } catch (const InstanceError& failure) {
      note_refusal(roles, role.name, failure);
    }
  }
  for (const auto& database : managed.databases) {
    try {
      databases[database.name] = {apply_database(db, database), ""};
    } catch (const InstanceError& failure) {
      note_refusal(databases, database.name, failure);
    }
  }
  // Last: a database dropped above no longer keeps its owner.
  for (const auto& role : managed.roles) {
    if (role.present) continue;
    try {
      if (db.value("SELECT count(*) FROM pg_roles WHERE rolname = $1", {role.name}) != "0")
        db.query("DROP ROLE " + db.identifier(role.name));
      password_versions_.erase(role.name);
    } catch (const InstanceError& failure) {
      // 2BP01: it still owns objects or holds privileges (REASSIGN OWNED / DROP OWNED are the user's call).
      note_refusal(roles, role.name, failure);
    }
  }
}

void ManagedSync::apply_role(PgConnection& db, const ManagedRole& role) {
  std::string name = db.identifier(role.name);
  std::string matches = role_matches(db, role);
  if (matches.empty()) {
    db.query(fmt::format("CREATE ROLE {} WITH {}", name, role_attributes(db, role)));
    password_versions_.erase(role.name);
  } else if (matches != "t") {
    db.query(fmt::format("ALTER ROLE {} WITH {}", name, role_attributes(db, role)));
  }
  std::string comment =
      db.value("SELECT coalesce(shobj_description(oid, 'pg_authid'), '') FROM pg_roles WHERE rolname = $1",
               {role.name});
  if (comment != role.comment)
    db.query(fmt::format("COMMENT ON ROLE {} IS {}", name,
                         role.comment.empty() ? std::string("NULL") : db.literal(role.comment)));
}

void ManagedSync::apply_memberships(PgConnection& db, const ManagedRole& role) {
  std::set<std::string> current;
  for (const auto& row : db.query(R"SQL(
SELECT g.rolname FROM pg_auth_members m
  JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles u ON u.oid = m.member
 WHERE u.rolname = $1)SQL",
                                  {role.name}))
    current.insert(row.at(0));
  std::set<std::string> wanted(role.in_roles.begin(), role.in_roles.end());
  std::string name = db.identifier(role.name);
  for (const auto& parent : wanted)
    if (!current.contains(parent)) db.query(fmt::format("GRANT {} TO {}", db.identifier(parent), name));
  for (const auto& parent : current)
    if (!wanted.contains(parent)) db.query(fmt::format("REVOKE {} FROM {}", db.identifier(parent), name));
}

void ManagedSync::apply_password(PgConnection& db, const ManagedRole& role, const Inputs& inputs) {
  std::string name = db.identifier(role.name);
  if (role.disable_password) {
    if (db.value("SELECT rolpassword IS NOT NULL FROM pg_authid WHERE rolname = $1", {role.name}) == "t")
      db.query(fmt::format("ALTER ROLE {} PASSWORD NULL", name));
    password_versions_.erase(role.name);
    return;
  }
  if (role.password_secret.empty()) return;  // neither: the password is left as it is
  auto found = inputs.role_passwords.find(role.password_secret);
  if (found == inputs.role_passwords.end())
    throw InstanceError(fmt::format("password Secret {} not read yet", role.password_secret));
  const RolePassword& secret = found->second;
  if (!secret.problem.empty())
    throw InstanceError(fmt::format("password Secret {}: {}", role.password_secret, secret.problem));
  if (!secret.username.empty() && secret.username != role.name)
    throw InstanceError(fmt::format("password Secret {}: its username is not the role's name {}",
                                    role.password_secret, role.name));
  if (password_versions_[role.name] == secret.version) return;
  // Never the password itself, nor its verifier, in the server log (as sync_roles).
  db.query("BEGIN");
  try {
    db.query("SET LOCAL log_statement = 'none'");
    db.query("SET LOCAL log_min_duration_statement = -1");
    db.query("SET LOCAL log_min_error_statement = 'panic'");
    db.query(fmt::format("ALTER ROLE {} PASSWORD {}", name,
                         db.literal(db.scram_verifier(secret.password, role.name))));
    db.query("COMMIT");
  } catch (const InstanceError&) {
    db.query("ROLLBACK");
    throw;
  }
  password_versions_[role.name] = secret.version;
}

std::string ManagedSync::apply_database(PgConnection& db, const ManagedDatabase& database) {
  auto rows = db.query(
      "SELECT pg_get_userbyid(datdba), pg_encoding_to_char(encoding) FROM pg_database WHERE datname = $1",
      {database.name});
  std::string name = db.identifier(database.name);
  if (!database.present) {
    if (rows.empty()) return kinds::cluster::k_state_removed;
    if (!database.drop_when_absent) return kinds::cluster::k_state_retained;
    // Without FORCE: a database someone is connected to stays, and says so.
    db.query("DROP DATABASE " + name);
    return kinds::cluster::k_state_removed;
  }
  if (rows.empty()) {
    std::string template_name = database.template_name;
    if (template_name.empty())
      template_name = database.encoding.empty() && database.locale.empty() ? "template1" : "template0";
    std::string statement = fmt::format("CREATE DATABASE {} OWNER {} TEMPLATE {}", name,
                                        db.identifier(database.owner), db.identifier(template_name));
    if (!database.encoding.empty()) statement += " ENCODING " + db.literal(database.encoding);
    if (!database.locale.empty()) statement += " LOCALE " + db.literal(database.locale);
    db.query(statement);  // CREATE DATABASE cannot run in a transaction block: it is on its own
  } else {
    if (!database.encoding.empty() && rows[0].at(1) != database.encoding)
      throw InstanceError(fmt::format("its encoding is {}, not {}: a database's encoding cannot change",
                                      rows[0][1], database.encoding));
    if (rows[0].at(0) != database.owner)
      db.query(fmt::format("ALTER DATABASE {} OWNER TO {}", name, db.identifier(database.owner)));
  }
  apply_extensions(database);
  return kinds::cluster::k_state_reconciled;
}

void ManagedSync::apply_extensions(const ManagedDatabase& database) {
  if (database.extensions.empty()) return;
  PgConnection db = tools_.connect_local(database.name);
  for (const auto& extension : database.extensions) {
    try {
      auto rows = db.query(R"SQL(
SELECT e.extversion, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE e.extname = $1)SQL",
                           {extension.name});
      std::string name = db.identifier(extension.name);
      if (!extension.present) {
        if (!rows.empty()) db.query("DROP EXTENSION " + name);
        continue;
      }
      if (rows.empty()) {
        std::string statement = "CREATE EXTENSION " + name;
        if (!extension.schema.empty()) statement += " SCHEMA " + db.identifier(extension.schema);
        if (!extension.version.empty()) statement += " VERSION " + db.literal(extension.version);
        db.query(statement);
        continue;
      }
      if (!extension.version.empty() && rows[0].at(0) != extension.version)
        db.query(fmt::format("ALTER EXTENSION {} UPDATE TO {}", name, db.literal(extension.version)));
      if (!extension.schema.empty() && rows[0].at(1) != extension.schema)
        db.query(fmt::format("ALTER EXTENSION {} SET SCHEMA {}", name, db.identifier(extension.schema)));
    } catch (const InstanceError& failure) {
      throw InstanceError(fmt::format("extension {}: {}", extension.name, failure.what()));
    }
  }
}

}  // namespace opctl::instance
