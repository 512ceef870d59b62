// What a certificate in a Secret says about itself (subject, names, validity),
// for `opctl cluster status` and the support bundle: a user sees when the
// server certificate expires without running openssl by hand.
#pragma once

#include <string>
#include <vector>

#include "kinds/kind_time.hpp"

namespace opctl::kinds::cluster {

struct CertificateSummary {
  std::string subject;  // RFC 2253, e.g. "CN=db-rw"
  std::string issuer;
  std::vector<std::string> dns_names;  // subjectAltName DNS entries
  TimePoint not_before;
  TimePoint not_after;
  bool is_ca = false;  // basicConstraints CA:TRUE
};

struct ParsedCertificates {
  std::vector<CertificateSummary> certificates;  // in the bundle's order
  std::string problem;                           // why the text could not be read whole; empty when it could
};

// Every certificate of a PEM bundle. Text that holds no certificate, or one
// that OpenSSL cannot parse, gives a problem, never an exception.
ParsedCertificates summarize_certificates(const std::string& pem);

}  // namespace opctl::kinds::cluster
