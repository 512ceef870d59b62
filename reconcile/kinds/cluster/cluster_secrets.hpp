// The Secrets applications connect with, as CloudNativePG writes them: type
// kubernetes.io/basic-auth, keys username, user, password, host, port, dbname,
// uri, jdbc-uri and pgpass; the host is the -rw Service's DNS name. Passwords
// are random, generated once: a Secret that exists keeps its data. With TLS
// (cluster_certificates.hpp) each also holds ca.crt, the CA that signed the
// server certificate, and a new Secret's uri and jdbc-uri ask for
// sslmode=verify-full (libpq and pgJDBC read that CA from
// ~/.postgresql/root.crt unless sslrootcert says otherwise).
#pragma once

#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds::cluster {

inline constexpr std::size_t k_password_length = 64;

// "<cluster>-rw.<namespace>.svc"
std::string rw_host(const ClusterSpec& spec);

// <cluster>-app: the application user and database. `live` is the observed Secret or null.
model::Json app_secret_object(const ClusterSpec& spec, const model::Json* live, RandomSource& random,
                              const std::string& ca_certificate = "");
// <cluster>-superuser: postgres, every database ("*").
model::Json superuser_secret_object(const ClusterSpec& spec, const model::Json* live, RandomSource& random,
                                    const std::string& ca_certificate = "");
// <cluster>-replication: streaming_replica, the role replicas clone and stream with.
model::Json replication_secret_object(const ClusterSpec& spec, const model::Json* live, RandomSource& random,
                                      const std::string& ca_certificate = "");

}  // namespace opctl::kinds::cluster
