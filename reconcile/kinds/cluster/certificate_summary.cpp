#include "kinds/cluster/certificate_summary.hpp"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>

namespace opctl::kinds::cluster {
namespace {

struct CertificateBioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct CertificateX509Free {
  void operator()(X509* certificate) const { X509_free(certificate); }
};
struct CertificateNamesFree {
  void operator()(GENERAL_NAMES* names) const { GENERAL_NAMES_free(names); }
};
struct CertificateConstraintsFree {
  void operator()(BASIC_CONSTRAINTS* constraints) const { BASIC_CONSTRAINTS_free(constraints); }
};

std::string certificate_name_text(const X509_NAME* name) {
  std::unique_ptr<BIO, CertificateBioFree> out(BIO_new(BIO_s_mem()));
  if (!out || X509_NAME_print_ex(out.get(), name, 0, XN_FLAG_RFC2253) < 0) return "";
  char* data = nullptr;
  long length = BIO_get_mem_data(out.get(), &data);
  return length > 0 ? std::string(data, static_cast<std::size_t>(length)) : "";
}

TimePoint certificate_time(const ASN1_TIME* time) {
  std::tm parts{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &parts) != 1) return TimePoint{};
  return std::chrono::system_clock::from_time_t(timegm(&parts));
}

std::vector<std::string> certificate_dns_names(X509* certificate) {
  std::vector<std::string> names;
  std::unique_ptr<GENERAL_NAMES, CertificateNamesFree> entries(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr)));
  if (!entries) return names;
  for (int i = 0; i < sk_GENERAL_NAME_num(entries.get()); ++i) {
    const GENERAL_NAME* entry = sk_GENERAL_NAME_value(entries.get(), i);
    if (entry->type != GEN_DNS) continue;
    const ASN1_IA5STRING* text = entry->d.dNSName;
    names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(text)),
                       static_cast<std::size_t>(ASN1_STRING_length(text)));
  }
  return names;
}

bool certificate_is_ca(X509* certificate) {
  std::unique_ptr<BASIC_CONSTRAINTS, CertificateConstraintsFree> constraints(static_cast<BASIC_CONSTRAINTS*>(
      X509_get_ext_d2i(certificate, NID_basic_constraints, nullptr, nullptr)));
  return constraints && constraints->ca != 0;
}

}  // namespace

ParsedCertificates summarize_certificates(const std::string& pem) {
  ParsedCertificates parsed;
  std::unique_ptr<BIO, CertificateBioFree> in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!in) {
    parsed.problem = "out of memory";
    return parsed;
  }
  ERR_clear_error();
  while (true) {
    std::unique_ptr<X509, CertificateX509Free> certificate(
        PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr));
    if (!certificate) break;
    CertificateSummary summary;
    summary.subject = certificate_name_text(X509_get_subject_name(certificate.get()));
    summary.issuer = certificate_name_text(X509_get_issuer_name(certificate.get()));
    summary.dns_names = certificate_dns_names(certificate.get());
    summary.not_before = certificate_time(X509_get0_notBefore(certificate.get()));
    summary.not_after = certificate_time(X509_get0_notAfter(certificate.get()));
    summary.is_ca = certificate_is_ca(certificate.get());
    parsed.certificates.push_back(std::move(summary));
  }
  // The loop ends at the end of the text (PEM_R_NO_START_LINE) or at a block it cannot parse.
  unsigned long error = ERR_peek_last_error();
  bool clean_end =
      error == 0 || (ERR_GET_LIB(error) == ERR_LIB_PEM && ERR_GET_REASON(error) == PEM_R_NO_START_LINE);
  if (!clean_end) {
    char text[256];
    ERR_error_string_n(error, text, sizeof text);
    parsed.problem = std::string("not a PEM certificate: ") + text;
  } else if (parsed.certificates.empty()) {
    parsed.problem = "no PEM certificate in it";
  }
  ERR_clear_error();
  return parsed;
}

}  // namespace opctl::kinds::cluster
