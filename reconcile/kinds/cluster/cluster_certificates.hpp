// spec.certificates: the TLS a Cluster's instances serve, as CloudNativePG's.
// By default opctl keeps a CA in the Secret <cluster>-ca and issues the server
// certificate <cluster>-server (the -rw, -ro and -r Services' DNS names) from
// it, re-issued 7 days before its 90 days run out or when
// opctl.io/renew-certificates asks; or the user names a kubernetes.io/tls
// Secret and the CA that signed it. The instance managers read the server
// Secret through the API, serve it, and reload PostgreSQL when it changes.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/kind_reconciler.hpp"
#include "kinds/kind_time.hpp"
#include "kinds/schema/schema.hpp"

namespace opctl::kinds::cluster {

// CloudNativePG's lifetimes: a server certificate lasts 90 days and is renewed 7 days before it expires.
inline constexpr std::chrono::hours k_server_certificate_validity{90 * 24};
inline constexpr std::chrono::hours k_certificate_renew_before{7 * 24};
// The CA opctl generates outlives many server certificates. It is rotated in two steps, so that
// clients which copied ca.crt keep verifying: a year before it expires its successor is made and
// trusted beside it (announced), and once it has less left than a server certificate lasts plus the
// renewal window, the successor signs and every certificate is issued again from it; the retired CA
// stays trusted until it expires. An unusable CA (missing, expired, not a CA) is replaced at once.
inline constexpr std::chrono::hours k_ca_validity{10 * 365 * 24};
inline constexpr std::chrono::hours k_ca_announce_before{365 * 24};
inline constexpr std::chrono::hours k_ca_switch_before =
    k_server_certificate_validity + k_certificate_renew_before;
// Certificates start a little in the past, for clocks slightly behind the pass's.
inline constexpr std::chrono::minutes k_certificate_backdate{5};

// On a Cluster: any new value re-issues the generated certificates at the next pass (the value
// acted upon is kept on the server Secret as opctl.io/renewed-for).
inline constexpr const char* k_renew_certificates_annotation = "opctl.io/renew-certificates";
inline constexpr const char* k_renewed_for_annotation = "opctl.io/renewed-for";

// The Secret keys: kubernetes.io/tls's, and the CA certificate beside them (as cert-manager writes it).
inline constexpr const char* k_tls_certificate_key = "tls.crt";
inline constexpr const char* k_tls_private_key = "tls.key";
inline constexpr const char* k_ca_certificate_key = "ca.crt";
inline constexpr const char* k_ca_private_key = "ca.key";
// In <cluster>-ca during a rotation: the successor (announced, not yet signing) and the retired CA.
inline constexpr const char* k_next_ca_certificate_key = "next-ca.crt";
inline constexpr const char* k_next_ca_private_key = "next-ca.key";
inline constexpr const char* k_previous_ca_certificate_key = "previous-ca.crt";

// Where the instances find their TLS material: the Secret holding tls.crt and tls.key, and the one
// holding ca.crt (both <cluster>-server unless the user names his own).
struct TlsSecretNames {
  std::string server;
  std::string ca;
  bool user_given = false;
};
TlsSecretNames tls_secret_names(const std::string& cluster, const CertificatesSpec& certificates);

// The DNS names of the server certificate: each Service (-rw, -ro, -r) as
// <svc>, <svc>.<ns>, <svc>.<ns>.svc and <svc>.<ns>.svc.cluster.local, then
// spec.certificates.serverAltDNSNames.
std::vector<std::string> server_dns_names(const ClusterSpec& spec);

CertificatesSpec certificates_spec(const model::Json& spec);
schema::Schema certificates_schema();
// What the schema cannot say (a server Secret without its CA, client certificates without opctl's CA).
std::vector<schema::Issue> certificates_issues(const model::Json& spec);

// What the pass observed of the TLS Secrets (each nullptr when absent).
struct TlsObserved {
  const model::Json* ca = nullptr;                    // <cluster>-ca
  const model::Json* server = nullptr;                // <cluster>-server
  std::map<std::string, const model::Json*> clients;  // by Secret name
  const model::Json* user_server = nullptr;           // spec.certificates.serverTLSSecret
  const model::Json* user_ca = nullptr;               // spec.certificates.serverCASecret
  std::string renew_request;                          // the Cluster's opctl.io/renew-certificates
  TimePoint now;
};

// The TLS Secrets this pass writes and what it did.
struct TlsSecrets {
  std::vector<model::Json> secrets;  // <cluster>-ca, <cluster>-server, <cluster>-client-*
  // PEM the clients trust (the -app and server Secrets' ca.crt): the signing CA, then its announced
  // successor or the retired CA while either is valid; empty when unknown.
  std::string ca_certificate;
  std::vector<KindEvent> events;  // a certificate issued, and why
  // A user-given Secret missing or unusable: the Degraded reason and message.
  std::string problem_reason;
  std::string problem;
};
TlsSecrets tls_secrets(const ClusterSpec& spec, const TlsObserved& observed);

// A live Secret listed again as it is (its type, data and opctl's annotations).
model::Json carry_over_secret(const ClusterSpec& spec, const model::Json& live);

// A Secret's data[key], base64-decoded; empty when absent.
std::string secret_text(const model::Json* secret, const char* key);

}  // namespace opctl::kinds::cluster
