#include "kinds/cluster/cluster_secrets.hpp"

#include <fmt/format.h>

#include "kinds/cluster/cluster_children.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "model/base64.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

struct Credentials {
  std::string secret;
  std::string username;
  std::string database;
};

// The password comes from [A-Za-z0-9], so it needs no escaping in a URI or a pgpass line.
Json secret_data(const ClusterSpec& spec, const Credentials& credentials, const std::string& password,
                 bool verify_full) {
  std::string host = rw_host(spec);
  std::string address = fmt::format("{}:{}", host, k_postgres_port);
  std::string database = credentials.database == "*" ? "%2A" : credentials.database;
  Json plain = {
      {"username", credentials.username},
      {"user", credentials.username},
      {"password", password},
      {"host", host},
      {"port", std::to_string(k_postgres_port)},
      {"dbname", credentials.database},
      {"uri", fmt::format("postgresql://{}:{}@{}/{}{}", credentials.username, password, address, database,
                          verify_full ? "?sslmode=verify-full" : "")},
      {"jdbc-uri", fmt::format("jdbc:postgresql://{}/{}?password={}&user={}{}", address, database, password,
                               credentials.username, verify_full ? "&sslmode=verify-full" : "")},
      {"pgpass", fmt::format("{}:{}:{}:{}:{}\n", host, k_postgres_port, credentials.database,
                             credentials.username, password)}};
  Json data = Json::object();
  for (const auto& [key, value] : plain.items())
    data[key] = model::base64_encode(value.get<std::string>());
  return data;
}

Json secret_object(const ClusterSpec& spec, const Credentials& credentials, const Json* live,
                   RandomSource& random, const std::string& ca_certificate) {
  Json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", child_metadata(spec, credentials.secret)},
                 {"type", "kubernetes.io/basic-auth"}};
  // Generated once: an existing Secret keeps its data, whatever the spec says now.
  if (live != nullptr && live->contains("data") && (*live)["data"].is_object() && !(*live)["data"].empty()) {
    secret["data"] = (*live)["data"];
    if (live->contains("type") && (*live)["type"].is_string()) secret["type"] = (*live)["type"];
    // Its uri stays as its clients know it; the CA is added beside it (and follows a changed CA).
    if (!ca_certificate.empty()) secret["data"]["ca.crt"] = model::base64_encode(ca_certificate);
    return secret;
  }
  secret["data"] = secret_data(spec, credentials, random.token(k_password_length), !ca_certificate.empty());
  if (!ca_certificate.empty()) secret["data"]["ca.crt"] = model::base64_encode(ca_certificate);
  return secret;
}

}  // namespace

std::string rw_host(const ClusterSpec& spec) {
  return fmt::format("{}.{}.svc", rw_service(spec.name), spec.namespace_name);
}

Json app_secret_object(const ClusterSpec& spec, const Json* live, RandomSource& random,
                       const std::string& ca_certificate) {
  return secret_object(spec, {app_secret(spec.name), spec.owner, spec.database}, live, random,
                       ca_certificate);
}

Json superuser_secret_object(const ClusterSpec& spec, const Json* live, RandomSource& random,
                             const std::string& ca_certificate) {
  return secret_object(spec, {superuser_secret(spec.name), "postgres", "*"}, live, random, ca_certificate);
}

Json replication_secret_object(const ClusterSpec& spec, const Json* live, RandomSource& random,
                               const std::string& ca_certificate) {
  return secret_object(spec, {replication_secret(spec.name), "streaming_replica", "replication"}, live,
                       random, ca_certificate);
}

}  // namespace opctl::kinds::cluster
