#include "tests/kube/support/test_certs.h"

#include <atomic>
#include <memory>
#include <stdexcept>

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace sh::kubetest {
namespace {

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;
using CertPtr = std::unique_ptr<X509, CertFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;

void check(bool ok, const char* what) {
  if (!ok) {
    throw std::runtime_error(std::string("test certificates: ") + what + " failed");
  }
}

KeyPtr newKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  check(key != nullptr, "EVP_EC_gen");
  return key;
}

void addExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(ext != nullptr, "X509V3_EXT_conf_nid");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

long nextSerial() {
  static std::atomic<long> serial{1000};
  return ++serial;
}

// A certificate for `key` named by (CN, O), signed by `issuerKey` as `issuer` (itself when
// null).
CertPtr makeCert(EVP_PKEY* key, const std::string& commonName, const std::string& organization,
                 X509* issuer, EVP_PKEY* issuerKey, int days, bool ca, const char* altNames,
                 const char* usage) {
  CertPtr cert(X509_new());
  check(cert != nullptr, "X509_new");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), nextSerial());
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(days) * 86400);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0);
  if (!organization.empty()) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(organization.c_str()), -1, -1,
                               0);
  }
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  if (ca) {
    addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    addExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    addExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature,keyEncipherment");
    addExtension(cert.get(), signer, NID_ext_key_usage, usage);
  }
  if (altNames != nullptr) {
    addExtension(cert.get(), signer, NID_subject_alt_name, altNames);
  }
  check(X509_sign(cert.get(), issuerKey != nullptr ? issuerKey : key, EVP_sha256()) > 0,
        "X509_sign");
  return cert;
}

std::string pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_X509(bio.get(), cert) == 1, "PEM_write_bio_X509");
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "PEM_write_bio_PrivateKey");
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

CertPtr readCert(const std::string& text) {
  BioPtr bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  check(cert != nullptr, "PEM_read_bio_X509");
  return cert;
}

KeyPtr readKey(const std::string& text) {
  BioPtr bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  check(key != nullptr, "PEM_read_bio_PrivateKey");
  return key;
}

}  // namespace

TlsMaterial makeTlsMaterial(const std::string& clientName, int days) {
  TlsMaterial m;
  KeyPtr caKey = newKey();
  CertPtr ca = makeCert(caKey.get(), "schedhost-test-ca", "", nullptr, nullptr, days, true, nullptr,
                        nullptr);
  m.caCert = pem(ca.get());
  m.caKey = pem(caKey.get());

  KeyPtr serverKey = newKey();
  CertPtr server = makeCert(serverKey.get(), "kube-apiserver", "", ca.get(), caKey.get(), days,
                            false, "IP:127.0.0.1,IP:::1,DNS:localhost", "serverAuth");
  m.serverCert = pem(server.get());
  m.serverKey = pem(serverKey.get());

  KeyPtr clientKey = newKey();
  CertPtr client = makeCert(clientKey.get(), clientName, "system:masters", ca.get(), caKey.get(),
                            days, false, nullptr, "clientAuth");
  m.clientCert = pem(client.get());
  m.clientKey = pem(clientKey.get());

  KeyPtr otherKey = newKey();
  CertPtr other =
      makeCert(otherKey.get(), "unrelated-ca", "", nullptr, nullptr, days, true, nullptr, nullptr);
  m.otherCaCert = pem(other.get());
  return m;
}

void signClient(const TlsMaterial& material, const std::string& commonName, std::string& certPem,
                std::string& keyPem) {
  CertPtr ca = readCert(material.caCert);
  KeyPtr caKey = readKey(material.caKey);
  KeyPtr key = newKey();
  CertPtr cert =
      makeCert(key.get(), commonName, "", ca.get(), caKey.get(), 2, false, nullptr, "clientAuth");
  certPem = pem(cert.get());
  keyPem = pem(key.get());
}

}  // namespace sh::kubetest
