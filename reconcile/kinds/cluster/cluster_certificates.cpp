#include "kinds/cluster/cluster_certificates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "kinds/cluster/cluster_children.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_view.hpp"
#include "kinds/cluster/tls_certificates.hpp"
#include "model/base64.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;
using schema::Schema;

constexpr const char* k_dns_name_pattern =
    R"(^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)";
constexpr const char* k_user_pattern = "^[a-z_][a-z0-9_]{0,62}$";

const Json k_no_certificates = Json::object();

const Json& certificates_of(const Json& spec) {
  return spec.is_object() && spec.contains("certificates") && spec["certificates"].is_object()
             ? spec["certificates"]
             : k_no_certificates;
}

std::string tls_string_at(const Json& object, const char* key) {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
}

std::vector<std::string> strings_at(const Json& object, const char* key) {
  std::vector<std::string> out;
  if (object.contains(key) && object[key].is_array())
    for (const auto& item : object[key])
      if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

Json tls_secret_object(const ClusterSpec& spec, const std::string& name, const char* type,
                       const std::map<std::string, std::string>& plain) {
  Json data = Json::object();
  for (const auto& [key, value] : plain)
    data[key] = model::base64_encode(value);
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", child_metadata(spec, name)},
          {"type", type},
          {"data", std::move(data)}};
}

std::string format_day(TimePoint time) {
  return format_time(time).substr(0, 10);
}

// The CAs of <cluster>-ca: the one that signs, its announced successor, the retired one.
struct Authorities {
  KeyPair signing;
  KeyPair next;          // empty unless announced
  std::string previous;  // certificate only; empty unless retired and still valid
  std::string trusted_bundle() const {
    std::string bundle = signing.certificate;
    for (const std::string* other : {&next.certificate, &previous})
      if (!other->empty()) bundle += (bundle.ends_with('\n') ? "" : "\n") + *other;
    return bundle;
  }
};

// What the CA certificate says, when the pair can sign: a CA, its key, not expired.
std::optional<CertificateInfo> usable_authority(const KeyPair& pair, TimePoint now) {
  auto info = read_certificate(pair.certificate);
  if (info && info->is_ca && key_matches(pair.certificate, pair.key) && now < info->not_after) return info;
  return std::nullopt;
}

KeyPair new_authority(const ClusterSpec& spec, TimePoint now) {
  return make_certificate_authority({fmt::format("{}.{} CA (opctl)", spec.name, spec.namespace_name),
                                     {},
                                     CertificateUsage::ca,
                                     now - k_certificate_backdate,
                                     now + k_ca_validity});
}

std::string valid_until(const KeyPair& pair) {
  auto info = read_certificate(pair.certificate);
  return info ? format_day(info->not_after) : "?";
}

// The CAs after this pass: the live ones while usable, a successor announced a year before the signing
// CA expires, the switch to it once the signing CA could no longer outlive a server certificate (every
// certificate it signed is then issued again, since it no longer verifies against the signing CA), and a
// new CA at once when the live one is unusable.
Authorities certificate_authorities(const ClusterSpec& spec, const TlsObserved& observed, TlsSecrets& out) {
  const TimePoint now = observed.now;
  Authorities live{
      {secret_text(observed.ca, k_ca_certificate_key), secret_text(observed.ca, k_ca_private_key)},
      {secret_text(observed.ca, k_next_ca_certificate_key), secret_text(observed.ca, k_next_ca_private_key)},
      secret_text(observed.ca, k_previous_ca_certificate_key)};
  if (!usable_authority(live.next, now)) live.next = {};
  if (auto retired = read_certificate(live.previous); !retired || now >= retired->not_after)
    live.previous.clear();
  auto signing = usable_authority(live.signing, now);
  if (!signing) {
    Authorities made{new_authority(spec, now), {}, {}};
    out.events.push_back(
        {"Normal", "CertificateAuthorityCreated",
         fmt::format("created the CA in Secret {} (valid until {}){}", ca_secret(spec.name),
                     valid_until(made.signing),
                     observed.ca == nullptr ? "" : ": the previous one was unusable or expired")});
    return made;
  }
  TimePoint expires = signing->not_after;
  if (now + k_ca_switch_before >= expires) {
    KeyPair successor = live.next.certificate.empty() ? new_authority(spec, now) : live.next;
    out.events.push_back(
        {"Normal", "CertificateAuthorityRotated",
         fmt::format("the CA in Secret {} now signs with its successor (valid until {}): the previous one "
                     "expires on {}; it stays trusted until then, and the certificates it signed are issued "
                     "again",
                     ca_secret(spec.name), valid_until(successor), format_day(expires))});
    return {successor, {}, live.signing.certificate};
  }
  if (now + k_ca_announce_before >= expires && live.next.certificate.empty()) {
    live.next = new_authority(spec, now);
    out.events.push_back(
        {"Normal", "CertificateAuthorityAnnounced",
         fmt::format("the CA in Secret {} expires on {}: its successor (valid until {}) is trusted beside it "
                     "from now on (ca.crt in the Cluster's Secrets) and signs from {}",
                     ca_secret(spec.name), format_day(expires), valid_until(live.next),
                     format_day(expires - k_ca_switch_before))});
  }
  return live;
}

// Why the live certificate must be issued again; empty when it may stay.
std::string renewal_reason(const KeyPair& live, const KeyPair& ca, const std::vector<std::string>& dns_names,
                           const std::string& common_name, TimePoint now, bool renew_requested) {
  auto info = read_certificate(live.certificate);
  if (!info || !key_matches(live.certificate, live.key)) return "it did not exist";
  if (!verifies_against(live.certificate, ca.certificate, now)) return "the CA changed";
  if (info->common_name != common_name) return "its common name changed";
  std::set<std::string> wanted(dns_names.begin(), dns_names.end());
  if (std::set<std::string>(info->dns_names.begin(), info->dns_names.end()) != wanted)
    return "its DNS names changed";
  if (now + k_certificate_renew_before >= info->not_after)
    return fmt::format("it expires on {}", format_day(info->not_after));
  if (renew_requested) return std::string(k_renew_certificates_annotation) + " asked for it";
  return "";
}

// One certificate the CA signs, kept while valid, issued again when renewal_reason() says so.
Json leaf_secret(const ClusterSpec& spec, const std::string& name, const CertificateRequest& request,
                 const Json* live, const KeyPair& ca, const TlsObserved& observed, TlsSecrets& out) {
  KeyPair pair{secret_text(live, k_tls_certificate_key), secret_text(live, k_tls_private_key)};
  std::string renewed_for = live == nullptr ? "" : annotation_of(*live, k_renewed_for_annotation);
  bool requested = !observed.renew_request.empty() && observed.renew_request != renewed_for;
  std::string reason =
      renewal_reason(pair, ca, request.dns_names, request.common_name, observed.now, requested);
  if (!reason.empty()) {
    pair = issue_certificate(ca, request);
    auto info = read_certificate(pair.certificate);
    out.events.push_back(
        {"Normal", "CertificateIssued",
         fmt::format("issued the certificate in Secret {} (serial {}, valid until {}): {}", name,
                     info ? info->serial : "?", format_day(request.not_after), reason)});
  }
  Json secret = tls_secret_object(spec, name, "kubernetes.io/tls",
                                  {{k_tls_certificate_key, pair.certificate},
                                   {k_tls_private_key, pair.key},
                                   {k_ca_certificate_key, out.ca_certificate}});
  // The request acted upon stays recorded whether or not this pass issued anything.
  std::string recorded = requested || !reason.empty() ? observed.renew_request : renewed_for;
  if (!recorded.empty()) secret["metadata"]["annotations"] = {{k_renewed_for_annotation, recorded}};
  return secret;
}

// The user's server certificate: checked, never written.
void check_user_secrets(const ClusterSpec& spec, const TlsObserved& observed, TlsSecrets& out) {
  const CertificatesSpec& wanted = spec.certificates;
  if (observed.user_server == nullptr || observed.user_ca == nullptr) {
    out.problem_reason = "TLSSecretNotFound";
    out.problem = fmt::format(
        "Secret {} (spec.certificates.{}) does not exist in namespace {}",
        observed.user_server == nullptr ? wanted.server_tls_secret : wanted.server_ca_secret,
        observed.user_server == nullptr ? "serverTLSSecret" : "serverCASecret", spec.namespace_name);
    return;
  }
  out.ca_certificate = secret_text(observed.user_ca, k_ca_certificate_key);
  std::string problem = key_pair_problem(secret_text(observed.user_server, k_tls_certificate_key),
                                         secret_text(observed.user_server, k_tls_private_key));
  if (problem.empty() && !read_certificate(out.ca_certificate))
    problem = fmt::format("Secret {} holds no PEM certificate in ca.crt", wanted.server_ca_secret);
  else if (!problem.empty())
    problem = fmt::format("Secret {}: {}", wanted.server_tls_secret, problem);
  if (!problem.empty()) {
    out.problem_reason = "TLSSecretUnusable";
    out.problem = problem + "; the instances keep the certificate they serve";
  }
}

}  // namespace

std::string secret_text(const Json* secret, const char* key) {
  if (secret == nullptr || !secret->contains("data") || !(*secret)["data"].is_object()) return "";
  const Json& data = (*secret)["data"];
  if (!data.contains(key) || !data[key].is_string()) return "";
  return model::base64_decode(data[key].get<std::string>()).value_or("");
}

Json carry_over_secret(const ClusterSpec& spec, const Json& live) {
  Json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", child_metadata(spec, live["metadata"].value("name", ""))},
                 {"type", live.value("type", "Opaque")},
                 {"data", live.value("data", Json::object())}};
  if (std::string renewed = annotation_of(live, k_renewed_for_annotation); !renewed.empty())
    secret["metadata"]["annotations"] = {{k_renewed_for_annotation, renewed}};
  return secret;
}

CertificatesSpec certificates_spec(const Json& spec) {
  const Json& certificates = certificates_of(spec);
  CertificatesSpec out;
  out.server_tls_secret = tls_string_at(certificates, "serverTLSSecret");
  out.server_ca_secret = tls_string_at(certificates, "serverCASecret");
  out.server_alt_dns_names = strings_at(certificates, "serverAltDNSNames");
  out.client_certificates = strings_at(certificates, "clientCertificates");
  return out;
}

TlsSecretNames tls_secret_names(const std::string& cluster, const CertificatesSpec& certificates) {
  if (!certificates.server_tls_secret.empty())
    return {certificates.server_tls_secret, certificates.server_ca_secret, true};
  return {server_secret(cluster), server_secret(cluster), false};
}

std::vector<std::string> server_dns_names(const ClusterSpec& spec) {
  std::vector<std::string> names;
  for (const auto& service : {rw_service(spec.name), ro_service(spec.name), r_service(spec.name)}) {
    names.push_back(service);
    names.push_back(service + "." + spec.namespace_name);
    names.push_back(service + "." + spec.namespace_name + ".svc");
    names.push_back(service + "." + spec.namespace_name + ".svc.cluster.local");
  }
  for (const auto& extra : spec.certificates.server_alt_dns_names)
    if (std::find(names.begin(), names.end(), extra) == names.end()) names.push_back(extra);
  return names;
}

Schema certificates_schema() {
  return Schema::object()
      .describe(
          "TLS of the instances (opctl-cluster-kind(5), TLS). Without serverTLSSecret opctl keeps a CA "
          "in <cluster>-ca and issues <cluster>-server from it, renewed before it expires")
      .field("serverTLSSecret",
             Schema::string().describe("a kubernetes.io/tls Secret (tls.crt, tls.key) the instances serve "
                                       "instead of the certificate opctl issues; needs serverCASecret"))
      .field("serverCASecret",
             Schema::string().describe("a Secret whose ca.crt holds the CA that signed serverTLSSecret: "
                                       "replicas verify the primary against it, and it verifies client "
                                       "certificates"))
      .field("serverAltDNSNames",
             Schema::array(Schema::string().pattern(k_dns_name_pattern, "a DNS name such as db.example.com"))
                 .describe("more DNS names for the server certificate opctl issues, besides the Services'"))
      .field("clientCertificates",
             Schema::array(Schema::string().pattern(k_user_pattern, "a lowercase PostgreSQL role name"))
                 .describe("PostgreSQL users to issue a client certificate for (Secret "
                           "<cluster>-client-<user>, common name the user), for pg_hba rules with the cert "
                           "method"));
}

std::vector<schema::Issue> certificates_issues(const Json& spec) {
  std::vector<schema::Issue> issues;
  CertificatesSpec certificates = certificates_spec(spec);
  if (certificates.server_tls_secret.empty() != certificates.server_ca_secret.empty())
    issues.push_back({certificates.server_tls_secret.empty() ? "/spec/certificates/serverCASecret"
                                                             : "/spec/certificates/serverTLSSecret",
                      certificates.server_tls_secret.empty() ? "spec.certificates.serverCASecret"
                                                             : "spec.certificates.serverTLSSecret",
                      "serverTLSSecret and serverCASecret go together: a user-given server certificate and "
                      "the CA that signed it"});
  if (!certificates.server_tls_secret.empty() && !certificates.client_certificates.empty())
    issues.push_back({"/spec/certificates/clientCertificates", "spec.certificates.clientCertificates",
                      "opctl issues client certificates only with its own CA (without serverTLSSecret)"});
  if (!certificates.server_tls_secret.empty() && !certificates.server_alt_dns_names.empty())
    issues.push_back(
        {"/spec/certificates/serverAltDNSNames", "spec.certificates.serverAltDNSNames",
         "only for the certificate opctl issues: put the names into serverTLSSecret's certificate"});
  return issues;
}

TlsSecrets tls_secrets(const ClusterSpec& spec, const TlsObserved& observed) {
  TlsSecrets out;
  if (!spec.certificates.server_tls_secret.empty()) {
    check_user_secrets(spec, observed, out);
    return out;
  }
  Authorities authorities = certificate_authorities(spec, observed, out);
  const KeyPair& ca = authorities.signing;
  out.ca_certificate = authorities.trusted_bundle();
  std::map<std::string, std::string> ca_data = {{k_ca_certificate_key, ca.certificate},
                                                {k_ca_private_key, ca.key}};
  if (!authorities.next.certificate.empty()) {
    ca_data[k_next_ca_certificate_key] = authorities.next.certificate;
    ca_data[k_next_ca_private_key] = authorities.next.key;
  }
  if (!authorities.previous.empty()) ca_data[k_previous_ca_certificate_key] = authorities.previous;
  out.secrets.push_back(tls_secret_object(spec, ca_secret(spec.name), "Opaque", ca_data));
  TimePoint not_before = observed.now - k_certificate_backdate;
  TimePoint not_after = observed.now + k_server_certificate_validity;
  CertificateRequest server{rw_service(spec.name), server_dns_names(spec), CertificateUsage::server,
                            not_before, not_after};
  out.secrets.push_back(
      leaf_secret(spec, server_secret(spec.name), server, observed.server, ca, observed, out));
  for (const auto& user : spec.certificates.client_certificates) {
    std::string name = client_secret(spec.name, user);
    auto live = observed.clients.find(name);
    CertificateRequest client{user, {}, CertificateUsage::client, not_before, not_after};
    out.secrets.push_back(leaf_secret(
        spec, name, client, live == observed.clients.end() ? nullptr : live->second, ca, observed, out));
  }
  return out;
}

}  // namespace opctl::kinds::cluster
