// spec.postgresql and spec.enableSuperuserAccess: what a Cluster adds to the
// configuration of every instance's PostgreSQL (parameters, pg_hba rules).
// The pass validates it and tells rolled-out from pending; the instance
// manager (reconcile/instance) reads the same fields and applies them, so
// both sides share the parsing and the hash here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kinds/schema/schema.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

struct PostgresConfiguration {
  std::map<std::string, std::string> parameters;  // spec.postgresql.parameters
  std::vector<std::string> pg_hba;                // spec.postgresql.pg_hba, in order
  // spec.enableSuperuserAccess: false rejects the superuser over the network
  // except from the Cluster's own instances (opctl-cluster-kind(5)).
  bool superuser_access = true;
  // spec.postgresql.requireSSL: TCP connections without TLS are refused (hostnossl ... reject).
  bool require_ssl = false;

  bool operator==(const PostgresConfiguration&) const = default;
};

// From a Cluster resource's spec (absent fields: defaults).
PostgresConfiguration postgres_configuration(const model::Json& spec);

// What a configuration is, in 16 hex digits: the instances report the one
// they applied (opctl.io/config-hash), the pass compares it with the spec's.
std::string configuration_hash(const PostgresConfiguration& configuration);

// Why opctl refuses a user-set parameter (it sets it itself, or PostgreSQL
// would stop replicating, failing over or being reachable with it); nullopt
// when the user may set it. Names are compared as PostgreSQL does, ignoring case.
std::optional<std::string> refused_parameter(const std::string& name);

// A pg_hba line opctl cannot write safely ('include' directives, line
// breaks); empty when fine.
std::string check_hba_line(const std::string& line);

// Refused parameters and unusable pg_hba rules of a Cluster's spec, each
// with its own pointer (so file:line names the very line).
std::vector<schema::Issue> configuration_issues(const model::Json& spec);

// The schema of spec.postgresql.
schema::Schema postgresql_schema();
schema::Schema superuser_access_schema();

}  // namespace opctl::kinds::cluster
