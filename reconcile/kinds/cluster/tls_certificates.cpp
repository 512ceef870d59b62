#include "kinds/cluster/tls_certificates.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstring>
#include <ctime>
#include <memory>

#include "model/error.hpp"

namespace opctl::kinds::cluster {
namespace {

template <typename T, void (*Free)(T*)>
struct TlsDeleter {
  void operator()(T* pointer) const { Free(pointer); }
};
using BioHandle = std::unique_ptr<BIO, TlsDeleter<BIO, BIO_free_all>>;
using KeyHandle = std::unique_ptr<EVP_PKEY, TlsDeleter<EVP_PKEY, EVP_PKEY_free>>;
using CertHandle = std::unique_ptr<X509, TlsDeleter<X509, X509_free>>;
using StoreHandle = std::unique_ptr<X509_STORE, TlsDeleter<X509_STORE, X509_STORE_free>>;
using StoreContextHandle = std::unique_ptr<X509_STORE_CTX, TlsDeleter<X509_STORE_CTX, X509_STORE_CTX_free>>;
using BigNumberHandle = std::unique_ptr<BIGNUM, TlsDeleter<BIGNUM, BN_free>>;
using NamesHandle = std::unique_ptr<GENERAL_NAMES, TlsDeleter<GENERAL_NAMES, GENERAL_NAMES_free>>;

[[noreturn]] void tls_failure(const char* what) {
  throw Error(ErrorCategory::internal, std::string("OpenSSL could not ") + what);
}

void tls_check(int result, const char* what) {
  if (result <= 0) tls_failure(what);
}

BioHandle tls_read_bio(const std::string& pem) {
  return BioHandle(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

std::string tls_bio_text(BIO* bio) {
  char* data = nullptr;
  long length = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(length));
}

CertHandle tls_parse_certificate(const std::string& pem) {
  auto bio = tls_read_bio(pem);
  return CertHandle(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

KeyHandle tls_parse_key(const std::string& pem) {
  auto bio = tls_read_bio(pem);
  return KeyHandle(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

KeyHandle tls_new_key() {
  // EC P-256: small, fast to make in a pass, accepted by PostgreSQL and every libpq client.
  KeyHandle key(EVP_EC_gen("P-256"));
  if (!key) tls_failure("generate an EC P-256 key");
  return key;
}

std::string tls_certificate_pem(X509* certificate) {
  BioHandle bio(BIO_new(BIO_s_mem()));
  tls_check(PEM_write_bio_X509(bio.get(), certificate), "write a certificate");
  return tls_bio_text(bio.get());
}

std::string tls_key_pem(EVP_PKEY* key) {
  BioHandle bio(BIO_new(BIO_s_mem()));
  tls_check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr), "write a key");
  return tls_bio_text(bio.get());
}

void tls_random_serial(X509* certificate) {
  // 127 random bits: unique per certificate (RFC 5280 allows 20 octets; positive).
  unsigned char bytes[16];
  tls_check(RAND_bytes(bytes, sizeof bytes), "draw a serial number");
  bytes[0] &= 0x7f;
  BigNumberHandle number(BN_bin2bn(bytes, sizeof bytes, nullptr));
  if (!number || BN_to_ASN1_INTEGER(number.get(), X509_get_serialNumber(certificate)) == nullptr)
    tls_failure("set a serial number");
}

void tls_add_extension(X509* certificate, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  if (extension == nullptr) tls_failure("make a certificate extension");
  int added = X509_add_ext(certificate, extension, -1);
  X509_EXTENSION_free(extension);
  tls_check(added, "add a certificate extension");
}

TimePoint tls_time_point(const ASN1_TIME* time) {
  std::tm parts{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &parts) != 1) return {};
  return std::chrono::system_clock::from_time_t(timegm(&parts));
}

// The certificate without its extensions and signature: subject, validity, key.
CertHandle tls_new_certificate(const CertificateRequest& request, EVP_PKEY* key) {
  CertHandle certificate(X509_new());
  if (!certificate) tls_failure("make a certificate");
  tls_check(X509_set_version(certificate.get(), 2), "set the certificate version");
  tls_random_serial(certificate.get());
  if (ASN1_TIME_set(X509_getm_notBefore(certificate.get()),
                    std::chrono::system_clock::to_time_t(request.not_before)) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(certificate.get()),
                    std::chrono::system_clock::to_time_t(request.not_after)) == nullptr)
    tls_failure("set the validity");
  X509_NAME* name = X509_get_subject_name(certificate.get());
  tls_check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                       reinterpret_cast<const unsigned char*>(request.common_name.c_str()),
                                       -1, -1, 0),
            "set the common name");
  tls_check(X509_set_pubkey(certificate.get(), key), "set the public key");
  return certificate;
}

void tls_sign(X509* certificate, EVP_PKEY* key) {
  if (X509_sign(certificate, key, EVP_sha256()) <= 0) tls_failure("sign a certificate");
}

}  // namespace

KeyPair make_certificate_authority(const CertificateRequest& request) {
  KeyHandle key = tls_new_key();
  CertHandle certificate = tls_new_certificate(request, key.get());
  tls_check(X509_set_issuer_name(certificate.get(), X509_get_subject_name(certificate.get())),
            "set the issuer");
  tls_add_extension(certificate.get(), certificate.get(), NID_basic_constraints, "critical,CA:TRUE");
  tls_add_extension(certificate.get(), certificate.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  tls_add_extension(certificate.get(), certificate.get(), NID_subject_key_identifier, "hash");
  tls_sign(certificate.get(), key.get());
  return {tls_certificate_pem(certificate.get()), tls_key_pem(key.get())};
}

KeyPair issue_certificate(const KeyPair& ca, const CertificateRequest& request) {
  CertHandle ca_certificate = tls_parse_certificate(ca.certificate);
  KeyHandle ca_key = tls_parse_key(ca.key);
  if (!ca_certificate || !ca_key)
    throw Error(ErrorCategory::internal, "the CA certificate or key is unreadable");
  KeyHandle key = tls_new_key();
  CertHandle certificate = tls_new_certificate(request, key.get());
  tls_check(X509_set_issuer_name(certificate.get(), X509_get_subject_name(ca_certificate.get())),
            "set the issuer");
  tls_add_extension(certificate.get(), ca_certificate.get(), NID_basic_constraints, "critical,CA:FALSE");
  tls_add_extension(certificate.get(), ca_certificate.get(), NID_key_usage,
                    "critical,digitalSignature,keyEncipherment");
  bool server = request.usage == CertificateUsage::server;
  tls_add_extension(certificate.get(), ca_certificate.get(), NID_ext_key_usage,
                    server ? "serverAuth" : "clientAuth");
  tls_add_extension(certificate.get(), ca_certificate.get(), NID_subject_key_identifier, "hash");
  tls_add_extension(certificate.get(), ca_certificate.get(), NID_authority_key_identifier, "keyid:always");
  if (!request.dns_names.empty()) {
    std::string names;
    for (const auto& dns : request.dns_names)
      names += (names.empty() ? "DNS:" : ",DNS:") + dns;
    tls_add_extension(certificate.get(), ca_certificate.get(), NID_subject_alt_name, names);
  }
  tls_sign(certificate.get(), ca_key.get());
  return {tls_certificate_pem(certificate.get()), tls_key_pem(key.get())};
}

std::optional<CertificateInfo> read_certificate(const std::string& pem) {
  CertHandle certificate = tls_parse_certificate(pem);
  if (!certificate) return std::nullopt;
  CertificateInfo info;
  char common_name[256] = {};
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(certificate.get()), NID_commonName, common_name,
                                sizeof common_name) > 0)
    info.common_name = common_name;
  NamesHandle names(static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(certificate.get(), NID_subject_alt_name, nullptr, nullptr)));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* entry = sk_GENERAL_NAME_value(names.get(), i);
    if (entry->type != GEN_DNS) continue;
    const ASN1_IA5STRING* dns = entry->d.dNSName;
    info.dns_names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                                static_cast<std::size_t>(ASN1_STRING_length(dns)));
  }
  BigNumberHandle serial(ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate.get()), nullptr));
  if (serial) {
    char* hex = BN_bn2hex(serial.get());
    info.serial = hex;
    OPENSSL_free(hex);
  }
  info.not_before = tls_time_point(X509_get0_notBefore(certificate.get()));
  info.not_after = tls_time_point(X509_get0_notAfter(certificate.get()));
  info.is_ca = X509_check_ca(certificate.get()) > 0;
  return info;
}

bool key_matches(const std::string& certificate_pem, const std::string& key_pem) {
  CertHandle certificate = tls_parse_certificate(certificate_pem);
  KeyHandle key = tls_parse_key(key_pem);
  return certificate && key && X509_check_private_key(certificate.get(), key.get()) == 1;
}

bool verifies_against(const std::string& certificate_pem, const std::string& ca_pem, TimePoint at) {
  CertHandle certificate = tls_parse_certificate(certificate_pem);
  StoreHandle store(X509_STORE_new());
  if (!certificate || !store) return false;
  auto bio = tls_read_bio(ca_pem);
  int authorities = 0;
  while (bio) {
    CertHandle ca(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!ca) break;
    if (X509_STORE_add_cert(store.get(), ca.get()) == 1) ++authorities;
  }
  if (authorities == 0) return false;
  StoreContextHandle context(X509_STORE_CTX_new());
  if (!context || X509_STORE_CTX_init(context.get(), store.get(), certificate.get(), nullptr) != 1)
    return false;
  X509_STORE_CTX_set_time(context.get(), 0, std::chrono::system_clock::to_time_t(at));
  return X509_verify_cert(context.get()) == 1;
}

std::string key_pair_problem(const std::string& certificate_pem, const std::string& key_pem) {
  if (!tls_parse_certificate(certificate_pem)) return "tls.crt holds no PEM certificate";
  if (!tls_parse_key(key_pem)) return "tls.key holds no unencrypted PEM private key";
  if (!key_matches(certificate_pem, key_pem)) return "tls.key is not the key of the certificate in tls.crt";
  return "";
}

}  // namespace opctl::kinds::cluster
