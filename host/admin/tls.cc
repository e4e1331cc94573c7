#include "host/admin/tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <chrono>
#include <memory>
#include <utility>

namespace sh::admin {
namespace {

namespace ssl = boost::asio::ssl;

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct ChainFree {
  void operator()(STACK_OF(X509) * chain) const { sk_X509_pop_free(chain, X509_free); }
};
struct StoreContextFree {
  void operator()(X509_STORE_CTX* context) const { X509_STORE_CTX_free(context); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

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

std::string pemOf(X509* certificate) {
  BioPtr out(BIO_new(BIO_s_mem()));
  if (out == nullptr || PEM_write_bio_X509(out.get(), certificate) != 1) return {};
  return bioText(out.get());
}

X509Ptr certificateOf(std::string_view pem) {
  BioPtr in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (in == nullptr) return nullptr;
  return X509Ptr(PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr));
}

// Every certificate of a PEM bundle (other blocks skipped, as certutil.ParseCertsPEM skips
// them); empty with `error` when one does not parse or there is none.
std::vector<X509Ptr> certificatesOf(std::string_view pem, std::string& error) {
  std::vector<X509Ptr> out;
  BioPtr in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (in == nullptr) {
    error = opensslError();
    return out;
  }
  ERR_clear_error();
  while (X509* x = PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr)) {
    out.emplace_back(x);
  }
  // The end of the text shows as "no start line"; anything else is a block that is broken.
  const unsigned long last = ERR_peek_last_error();
  if (ERR_GET_LIB(last) != ERR_LIB_PEM || ERR_GET_REASON(last) != PEM_R_NO_START_LINE) {
    error = "a certificate does not parse: " + opensslError();
    out.clear();
    return out;
  }
  ERR_clear_error();
  if (out.empty()) error = "no certificate in it";
  return out;
}

CertificateSubject subjectOf(X509* certificate) {
  CertificateSubject out;
  X509_NAME* subject = X509_get_subject_name(certificate);
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
    const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
    unsigned char* utf8 = nullptr;
    const int length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
    if (length < 0) continue;
    std::string value(reinterpret_cast<const char*>(utf8), static_cast<std::size_t>(length));
    OPENSSL_free(utf8);
    if (nid == NID_commonName) {
      out.commonName = std::move(value);  // pkix.Name keeps the last
    } else if (nid == NID_organizationName) {
      out.organizations.push_back(std::move(value));
    }
  }
  return out;
}

bool isIpAddress(const std::string& text) {
  unsigned char address[16];
  return inet_pton(AF_INET, text.c_str(), address) == 1 ||
         inet_pton(AF_INET6, text.c_str(), address) == 1;
}

// A certificate for `key` named CN `commonName`, valid from `notBefore` (unix seconds) for a
// year, signed by `issuerKey` as `issuer` (itself when null), with these extensions.
X509Ptr makeCertificate(EVP_PKEY* key, const std::string& commonName, long notBefore, X509* issuer,
                        EVP_PKEY* issuerKey,
                        const std::vector<std::pair<int, std::string>>& extensions,
                        std::string& error) {
  X509Ptr certificate(X509_new());
  if (certificate == nullptr) {
    error = "making a certificate: " + opensslError();
    return nullptr;
  }
  X509* x = certificate.get();
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;  // positive
  BIGNUM* number = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x));
  BN_free(number);
  X509_set_version(x, 2);
  const long year = 365L * 24 * 3600;
  ASN1_TIME_set(X509_getm_notBefore(x), static_cast<time_t>(notBefore));
  ASN1_TIME_set(X509_getm_notAfter(x), static_cast<time_t>(notBefore + year));
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0);
  X509_set_issuer_name(x, issuer != nullptr ? X509_get_subject_name(issuer) : name);
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, issuer != nullptr ? issuer : x, x, nullptr, nullptr, 0);
  for (const auto& [nid, value] : extensions) {
    X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &v3, nid, value.c_str());
    if (extension == nullptr) {
      error = "making the certificate \"" + commonName + "\": " + opensslError();
      return nullptr;
    }
    X509_add_ext(x, extension, -1);
    X509_EXTENSION_free(extension);
  }
  if (X509_sign(x, issuerKey != nullptr ? issuerKey : key, EVP_sha256()) == 0) {
    error = "signing the certificate \"" + commonName + "\": " + opensslError();
    return nullptr;
  }
  return certificate;
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
    std::string why;
    const std::vector<X509Ptr> authorities = certificatesOf(tls.clientCaPem, why);
    if (authorities.empty()) {
      error = "the client CA does not load: " + why;
      return std::nullopt;
    }
    for (const X509Ptr& authority : authorities) {
      // The names of the CertificateRequest (a Go client sends only a certificate they name).
      SSL_CTX_add_client_CA(context.native_handle(), authority.get());
    }
    context.set_verify_mode(ssl::verify_peer);
    // Asked for, not required, and not judged here: the gate verifies the chain (callerOf).
    context.set_verify_callback([](bool, ssl::verify_context&) { return true; });
  }
  return context;
}

Caller callerOf(SSL* ssl) {
  Caller caller;
  X509Ptr leaf(SSL_get1_peer_certificate(ssl));
  if (leaf == nullptr) return caller;
  caller.certificates.push_back(pemOf(leaf.get()));
  // On a server, the chain the peer sent without its own certificate (kept apart all the same,
  // should a library include it).
  if (STACK_OF(X509)* chain = SSL_get_peer_cert_chain(ssl)) {
    for (int i = 0; i < sk_X509_num(chain); ++i) {
      X509* x = sk_X509_value(chain, i);
      if (X509_cmp(x, leaf.get()) != 0) caller.certificates.push_back(pemOf(x));
    }
  }
  return caller;
}

CaBundle::CaBundle(X509_STORE* store) : store_(store) {}

CaBundle::~CaBundle() { X509_STORE_free(store_); }

std::shared_ptr<const CaBundle> CaBundle::fromPem(std::string_view pem, std::string& error) {
  const std::vector<X509Ptr> authorities = certificatesOf(pem, error);
  if (authorities.empty()) return nullptr;
  X509_STORE* store = X509_STORE_new();
  if (store == nullptr) {
    error = opensslError();
    return nullptr;
  }
  std::shared_ptr<const CaBundle> bundle(new CaBundle(store));
  for (const X509Ptr& authority : authorities) {
    X509_STORE_add_cert(store, authority.get());  // a duplicate is ignored
  }
  ERR_clear_error();
  // x509.CertPool: every certificate of the pool is a root, whoever issued it.
  X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
  return bundle;
}

std::optional<CertificateSubject> CaBundle::verify(const std::vector<std::string>& chain,
                                                   std::string& error) const {
  if (chain.empty()) {
    error = "no client certificate";
    return std::nullopt;
  }
  X509Ptr leaf = certificateOf(chain.front());
  std::unique_ptr<STACK_OF(X509), ChainFree> intermediates(sk_X509_new_null());
  std::unique_ptr<X509_STORE_CTX, StoreContextFree> context(X509_STORE_CTX_new());
  if (leaf == nullptr || intermediates == nullptr || context == nullptr) {
    error = leaf == nullptr ? "the client certificate does not parse" : opensslError();
    ERR_clear_error();
    return std::nullopt;
  }
  for (std::size_t i = 1; i < chain.size(); ++i) {
    if (X509Ptr x = certificateOf(chain[i]); x != nullptr) {
      if (sk_X509_push(intermediates.get(), x.get()) > 0) x.release();
    }
  }
  ERR_clear_error();
  if (X509_STORE_CTX_init(context.get(), store_, leaf.get(), intermediates.get()) != 1) {
    error = opensslError();
    return std::nullopt;
  }
  // x509.ExtKeyUsageClientAuth.
  X509_STORE_CTX_set_purpose(context.get(), X509_PURPOSE_SSL_CLIENT);
  if (X509_verify_cert(context.get()) != 1) {
    error = X509_verify_cert_error_string(X509_STORE_CTX_get_error(context.get()));
    ERR_clear_error();
    return std::nullopt;
  }
  return subjectOf(leaf.get());
}

bool selfSignedCertificate(const std::string& host, const std::vector<std::string>& alternateIps,
                           const std::vector<std::string>& alternateDns,
                           std::string& certificatePem, std::string& privateKeyPem,
                           std::string& error) {
  KeyPtr caKey(EVP_RSA_gen(2048));
  KeyPtr key(EVP_RSA_gen(2048));
  if (caKey == nullptr || key == nullptr) {
    error = "making a key: " + opensslError();
    return false;
  }
  const long now = static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count());
  const long validFrom = now - 3600;  // an hour earlier, for clocks that lag
  // The names, as x509.CreateCertificate writes them: DNS names, then IP addresses; each once.
  std::vector<std::string> dns;
  std::vector<std::string> ips;
  auto add = [](std::vector<std::string>& to, const std::string& name) {
    if (!name.empty() && std::find(to.begin(), to.end(), name) == to.end()) to.push_back(name);
  };
  add(isIpAddress(host) ? ips : dns, host);
  for (const std::string& ip : alternateIps) add(ips, ip);
  for (const std::string& name : alternateDns) add(dns, name);
  std::string san;
  for (const std::string& name : dns) san += (san.empty() ? "DNS:" : ",DNS:") + name;
  for (const std::string& ip : ips) san += (san.empty() ? "IP:" : ",IP:") + ip;

  const std::string stamp = "@" + std::to_string(now);
  X509Ptr ca =
      makeCertificate(caKey.get(), host + "-ca" + stamp, validFrom, nullptr, nullptr,
                      {{NID_basic_constraints, "critical,CA:TRUE"},
                       {NID_key_usage, "critical,digitalSignature,keyEncipherment,keyCertSign"},
                       {NID_subject_key_identifier, "hash"}},
                      error);
  if (ca == nullptr) return false;
  std::vector<std::pair<int, std::string>> extensions = {
      {NID_basic_constraints, "critical,CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
      {NID_ext_key_usage, "serverAuth"},
      {NID_authority_key_identifier, "keyid:always"}};
  if (!san.empty()) extensions.emplace_back(NID_subject_alt_name, san);
  X509Ptr serving =
      makeCertificate(key.get(), host + stamp, validFrom, ca.get(), caKey.get(), extensions, error);
  if (serving == nullptr) return false;
  BioPtr keyOut(BIO_new(BIO_s_mem()));
  if (keyOut == nullptr ||
      PEM_write_bio_PrivateKey_traditional(keyOut.get(), key.get(), nullptr, nullptr, 0, nullptr,
                                           nullptr) != 1) {
    error = "writing PEM: " + opensslError();
    return false;
  }
  // The serving certificate, then its CA.
  certificatePem = pemOf(serving.get()) + pemOf(ca.get());
  privateKeyPem = bioText(keyOut.get());
  return true;
}

}  // namespace sh::admin
