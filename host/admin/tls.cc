#include "host/admin/tls.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/buffer.hpp>
#include <chrono>
#include <memory>
#include <utility>

namespace sh::admin {
namespace {

namespace ssl = boost::asio::ssl;

std::string opensslError() {
  const unsigned long code = ERR_get_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  ERR_clear_error();
  return text;
}

std::string bioText(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return size > 0 ? std::string(data, static_cast<std::size_t>(size)) : std::string();
}

}  // namespace

std::optional<ssl::context> makeTlsContext(const ServerOptions::Tls& tls, std::string& error) {
  ssl::context context(ssl::context::tls_server);
  context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                      ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                      ssl::context::single_dh_use);
  boost::system::error_code ec;
  context.use_certificate_chain(boost::asio::buffer(tls.certificatePem), ec);
  if (ec) {
    error = "the certificate does not load: " + ec.message();
    return std::nullopt;
  }
  // OpenSSL checks here that the key is the certificate's ("key values mismatch").
  context.use_private_key(boost::asio::buffer(tls.privateKeyPem), ssl::context::pem, ec);
  if (ec) {
    error = "the private key does not load: " + ec.message();
    return std::nullopt;
  }
  if (!tls.clientCaPem.empty()) {
    context.add_certificate_authority(boost::asio::buffer(tls.clientCaPem), ec);
    if (ec) {
      error = "the client CA does not load: " + ec.message();
      return std::nullopt;
    }
    context.set_verify_mode(ssl::verify_peer);
    // Verified, not required: the outcome is read after the handshake (callerOf).
    context.set_verify_callback([](bool, ssl::verify_context&) { return true; });
  }
  return context;
}

Caller callerOf(SSL* ssl) {
  Caller caller;
  X509* certificate = SSL_get1_peer_certificate(ssl);
  if (certificate == nullptr) return caller;
  caller.certificate = true;
  if (const long result = SSL_get_verify_result(ssl); result != X509_V_OK) {
    caller.certificateError = X509_verify_cert_error_string(result);
  }
  X509_NAME* subject = X509_get_subject_name(certificate);
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
    const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
    unsigned char* utf8 = nullptr;
    const int length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
    if (length < 0) continue;
    std::string value(reinterpret_cast<const char*>(utf8), static_cast<std::size_t>(length));
    OPENSSL_free(utf8);
    if (nid == NID_commonName && caller.certificateUser.empty()) {
      caller.certificateUser = std::move(value);
    } else if (nid == NID_organizationName) {
      caller.certificateGroups.push_back(std::move(value));
    }
  }
  X509_free(certificate);
  return caller;
}

bool selfSignedCertificate(const std::string& host, std::string& certificatePem,
                           std::string& privateKeyPem, std::string& error) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(2048), EVP_PKEY_free);
  std::unique_ptr<X509, decltype(&X509_free)> certificate(X509_new(), X509_free);
  if (key == nullptr || certificate == nullptr) {
    error = "making a key: " + opensslError();
    return false;
  }
  X509* x = certificate.get();
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;  // positive
  BIGNUM* number = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x));
  BN_free(number);
  X509_set_version(x, 2);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 365L * 24 * 3600);
  X509_set_pubkey(x, key.get());
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const std::string commonName = host + "@" + std::to_string(now);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0);
  X509_set_issuer_name(x, name);
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, x, x, nullptr, nullptr, 0);
  const std::string san = "DNS:" + host + ",IP:127.0.0.1";
  for (const auto& [nid, value] :
       {std::pair{NID_basic_constraints, std::string("critical,CA:FALSE")},
        std::pair{NID_key_usage, std::string("critical,digitalSignature,keyEncipherment")},
        std::pair{NID_ext_key_usage, std::string("serverAuth")},
        std::pair{NID_subject_alt_name, san}}) {
    X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &v3, nid, value.c_str());
    if (extension == nullptr) {
      error = "making the certificate: " + opensslError();
      return false;
    }
    X509_add_ext(x, extension, -1);
    X509_EXTENSION_free(extension);
  }
  if (X509_sign(x, key.get(), EVP_sha256()) == 0) {
    error = "signing the certificate: " + opensslError();
    return false;
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> certOut(BIO_new(BIO_s_mem()), BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> keyOut(BIO_new(BIO_s_mem()), BIO_free);
  if (PEM_write_bio_X509(certOut.get(), x) != 1 ||
      PEM_write_bio_PrivateKey(keyOut.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1) {
    error = "writing PEM: " + opensslError();
    return false;
  }
  certificatePem = bioText(certOut.get());
  privateKeyPem = bioText(keyOut.get());
  return true;
}

}  // namespace sh::admin
