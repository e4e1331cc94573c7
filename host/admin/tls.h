// HTTPS for the admin server's secure listener (OpenSSL through Asio): the server's context
// from PEM, the client certificate a caller presented, and the self-signed certificate
// kube-scheduler makes at startup when it is given none.
#pragma once

#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>
#include <optional>
#include <string>

#include "host/admin/server.h"

namespace sh::admin {

// TLS 1.2 and later, the certificate chain and its key (which must match it); with a client CA,
// client certificates are asked for and verified after the handshake (an invalid one does not
// end the handshake: the gate refuses the request, as upstream's x509 authenticator does).
// Nullopt with `error` naming the part that does not load.
std::optional<boost::asio::ssl::context> makeTlsContext(const ServerOptions::Tls& tls,
                                                        std::string& error);

// The client certificate of a finished handshake, if any.
Caller callerOf(SSL* ssl);

// upstream certutil.GenerateSelfSignedCertKey(host, 127.0.0.1, none): a key and a
// certificate for `host` ("localhost"), CN "<host>@<unix time>", valid from an hour ago for a
// year, DNS name `host` and IP 127.0.0.1, serverAuth. Upstream signs it with a CA made for
// the purpose; this one signs itself (clients of it skip verification either way). False with
// `error` when OpenSSL fails.
bool selfSignedCertificate(const std::string& host, std::string& certificatePem,
                           std::string& privateKeyPem, std::string& error);

}  // namespace sh::admin
