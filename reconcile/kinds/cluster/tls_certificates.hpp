// X.509 certificates for a Cluster's TLS, made and read with OpenSSL: a CA,
// server and client certificates it signs (EC P-256 keys, PEM), and what a
// certificate says (SANs, validity, serial) so that a pass can tell whether
// to renew it. Keys never leave these values: nothing here logs or prints.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "kinds/kind_time.hpp"

namespace opctl::kinds::cluster {

// A certificate and its private key, both PEM (the key PKCS#8, unencrypted).
struct KeyPair {
  std::string certificate;
  std::string key;
};

enum class CertificateUsage { ca, server, client };

struct CertificateRequest {
  std::string common_name;
  std::vector<std::string> dns_names;  // subjectAltName DNS entries (server certificates)
  CertificateUsage usage = CertificateUsage::server;
  TimePoint not_before;
  TimePoint not_after;
};

// A self-signed CA (basicConstraints CA:TRUE, keyCertSign, cRLSign).
KeyPair make_certificate_authority(const CertificateRequest& request);
// A leaf certificate signed by `ca`: serverAuth with the SANs, or clientAuth
// with the common name a PostgreSQL user authenticates as. Throws
// opctl::Error when `ca` cannot be read.
KeyPair issue_certificate(const KeyPair& ca, const CertificateRequest& request);

struct CertificateInfo {
  std::string common_name;
  std::vector<std::string> dns_names;
  std::string serial;  // upper-case hex, as openssl x509 -serial prints it
  TimePoint not_before;
  TimePoint not_after;
  bool is_ca = false;
};

// What the first certificate of a PEM text says; nullopt when it is none.
std::optional<CertificateInfo> read_certificate(const std::string& pem);
// The private key (PEM) belongs to the certificate.
bool key_matches(const std::string& certificate_pem, const std::string& key_pem);
// The certificate chains to the CA certificate(s) in `ca_pem` and is valid at `at`.
bool verifies_against(const std::string& certificate_pem, const std::string& ca_pem, TimePoint at);
// Why a certificate and key (user-given or generated) cannot serve TLS: no
// certificate, no key, or a key of another certificate; empty when usable.
std::string key_pair_problem(const std::string& certificate_pem, const std::string& key_pem);

}  // namespace opctl::kinds::cluster
