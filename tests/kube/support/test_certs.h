// Certificates for the tests that speak HTTPS on loopback, made at run time with OpenSSL so
// nothing secret or expiring is kept in the repository.
//
//   ca          a self-signed CA
//   server      signed by ca; subjectAltName IP 127.0.0.1, IP ::1, DNS localhost
//   client      signed by ca; CN = `clientName`, O = system:masters (a client certificate
//               the test API server accepts as that user)
//   otherCa     an unrelated self-signed CA: a client trusting it must refuse the server
//
// Keys are EC P-256; certificates are valid from an hour ago for `days` days. All PEM.
#pragma once

#include <string>

namespace sh::kubetest {

struct TlsMaterial {
  std::string caCert, caKey;
  std::string serverCert, serverKey;
  std::string clientCert, clientKey;
  std::string otherCaCert;
};

// Throws std::runtime_error when OpenSSL fails.
TlsMaterial makeTlsMaterial(const std::string& clientName = "schedhost", int days = 2);

// A certificate and key for `commonName` signed by the CA in `material` (another client).
void signClient(const TlsMaterial& material, const std::string& commonName, std::string& certPem,
                std::string& keyPem);

}  // namespace sh::kubetest
