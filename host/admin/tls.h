// HTTPS for the admin server's secure listener (OpenSSL through Asio): the server's context
// from PEM, the client certificate chain a caller presented and its verification against a CA
// bundle, and the self-signed certificate kube-scheduler makes at startup when it is given
// none.
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/admin/server.h"

namespace sh::admin {

// TLS 1.2 and later, the certificate chain and its key (which must match it); with client CAs,
// client certificates are asked for, the CAs named as the acceptable issuers, and any chain is
// accepted by the handshake: the gate verifies it (an invalid one does not end the handshake,
// the gate refuses the request, as upstream's x509 authenticator does). Nullopt with `error`
// naming the part that does not load.
std::optional<boost::asio::ssl::context> makeTlsContext(const ServerOptions::Tls& tls,
                                                        std::string& error);

// The client certificate chain of a finished handshake (Caller::certificates), if any.
Caller callerOf(SSL* ssl);

// The subject of a verified client certificate, as upstream reads it (pkix.Name): the common
// name (the last CN attribute) and the organizations (every O).
struct CertificateSubject {
  std::string commonName;
  std::vector<std::string> organizations;
};

// A CA bundle that client certificate chains are verified against, as upstream's x509
// authenticator does (x509.Certificate.Verify with DefaultVerifyOptions): every certificate of
// the bundle is a trust anchor, self-signed or not; the rest of the presented chain serves as
// intermediates; the certificate must be valid now and allow client authentication.
// Immutable, and safe to use from several threads at once.
class CaBundle {
 public:
  // Null with `error` when `pem` holds no certificate, or a certificate that does not parse.
  static std::shared_ptr<const CaBundle> fromPem(std::string_view pem, std::string& error);
  ~CaBundle();
  CaBundle(const CaBundle&) = delete;
  CaBundle& operator=(const CaBundle&) = delete;

  // The subject of `chain`'s first certificate (PEM each, as Caller::certificates) when the
  // chain verifies; nullopt with `error` saying why not.
  std::optional<CertificateSubject> verify(const std::vector<std::string>& chain,
                                           std::string& error) const;

 private:
  explicit CaBundle(X509_STORE* store);
  X509_STORE* store_;
};

// upstream certutil.GenerateSelfSignedCertKeyWithFixtures(host, alternateIps, alternateDns,
// ""): a CA made for the purpose, CN "<host>-ca@<unix time>", and a serving certificate it
// signs, CN "<host>@<unix time>", both RSA 2048, valid from an hour ago for a year. The
// serving certificate's names are `host` (a DNS name, or an IP address when it is one), then
// `alternateIps`, then `alternateDns` (duplicates dropped); it is for serverAuth. The
// certificate PEM holds the serving certificate followed by the CA; the key is the serving
// certificate's, PKCS #1 ("RSA PRIVATE KEY"). False with `error` when OpenSSL fails.
bool selfSignedCertificate(const std::string& host, const std::vector<std::string>& alternateIps,
                           const std::vector<std::string>& alternateDns,
                           std::string& certificatePem, std::string& privateKeyPem,
                           std::string& error);

}  // namespace sh::admin
