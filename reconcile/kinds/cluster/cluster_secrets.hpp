// The Secrets applications connect with, as CloudNativePG writes them: type
// kubernetes.io/basic-auth, keys username, user, password, host, port, dbname,
// uri, jdbc-uri and pgpass; the host is the -rw Service's DNS name. Passwords
// are random, generated once: a Secret that exists is returned as it is.
#pragma once

#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds::cluster {

inline constexpr std::size_t k_password_length = 64;

// "<cluster>-rw.<namespace>.svc"
std::string rw_host(const ClusterSpec& spec);

// <cluster>-app: the application user and database. `live` is the observed Secret or null.
model::Json app_secret_object(const ClusterSpec& spec, const model::Json* live, RandomSource& random);
// <cluster>-superuser: postgres, every database ("*").
model::Json superuser_secret_object(const ClusterSpec& spec, const model::Json* live, RandomSource& random);
// <cluster>-replication: streaming_replica, the role replicas clone and stream with.
model::Json replication_secret_object(const ClusterSpec& spec, const model::Json* live, RandomSource& random);

}  // namespace opctl::kinds::cluster
