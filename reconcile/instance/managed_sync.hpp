// spec.managed applied by the primary's instance manager: roles (attributes,
// comment, memberships, password from a Secret), then databases (owner,
// extensions; dropped only with reclaimPolicy delete), then the roles
// declared absent (so that a database dropped first frees its owner). Every
// step compares the catalogs (pg_roles, pg_auth_members, pg_database,
// pg_extension) first and changes only what differs; names are quoted by
// libpq; passwords go as SCRAM verifiers computed here with statement logging
// off, as sync_roles does for opctl's own roles. What PostgreSQL refuses
// (a role that still owns objects, an encoding that cannot change) is
// reported per name as cannotReconcile and tried again later.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "instance/instance_inputs.hpp"
#include "instance/postgres_tools.hpp"

namespace opctl::instance {

class ManagedSync {
 public:
  explicit ManagedSync(const PostgresTools& tools) : tools_(tools) {}

  // Applies `inputs.managed` through `db` (the local primary, as the
  // superuser) when the declaration or a password Secret changed, or a
  // while after the last run (drift, refusals); never throws an opctl::Error.
  void step(PgConnection& db, const Inputs& inputs);
  // ManagedReport::to_text() of the last run; empty when nothing is managed.
  const std::string& report() const { return report_; }
  // No longer the primary: a later primary applies everything again, passwords included.
  void forget();

 private:
  using States = std::map<std::string, kinds::cluster::ManagedState>;

  void run(PgConnection& db, const Inputs& inputs, States& roles, States& databases);
  void apply_role(PgConnection& db, const kinds::cluster::ManagedRole& role);
  void apply_memberships(PgConnection& db, const kinds::cluster::ManagedRole& role);
  void apply_password(PgConnection& db, const kinds::cluster::ManagedRole& role, const Inputs& inputs);
  // The database's final state (reconciled, removed or retained).
  std::string apply_database(PgConnection& db, const kinds::cluster::ManagedDatabase& database);
  void apply_extensions(const kinds::cluster::ManagedDatabase& database);

  const PostgresTools& tools_;
  std::string applied_fingerprint_;  // the declaration and Secret versions of the last run
  std::chrono::steady_clock::time_point applied_at_{};
  bool refused_ = false;                                  // the last run had a cannotReconcile
  std::map<std::string, std::string> password_versions_;  // role -> the Secret version it was set from
  std::string report_;
};

}  // namespace opctl::instance
