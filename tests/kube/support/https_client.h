// One HTTPS GET with headers of the test's choosing, for the secure port's tests (the API
// connector's transport sends only its own): blocking, on loopback, with a client certificate
// chain or none, the server verified against a CA or not at all. Each call is a connection
// of its own, given 10 s to answer.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace sh::kubetest {

struct HttpsCall {
  int port = 0;
  std::string path = "/";
  std::string caPem;           // the server is verified against it (as 127.0.0.1); empty: not
  std::string certificatePem;  // the client's certificate chain, its own first; empty: none
  std::string keyPem;
  std::vector<std::pair<std::string, std::string>> headers;
};

struct HttpsAnswer {
  int status = 0;  // 0: no answer, `error` says why
  std::string body;
  std::string error;
  std::vector<std::string> servedChain;  // the server's certificate chain, PEM, its own first
};

HttpsAnswer httpsGet(const HttpsCall& call);

}  // namespace sh::kubetest
