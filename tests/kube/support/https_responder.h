// HttpsResponder: a minimal loopback HTTP/1.1 server (TLS or plain) for the transport tests.
// Each accepted connection is served by a thread of its own with blocking I/O; requests are
// answered by a handler the test gives, which may delay, close the connection after its
// answer, or stream a chunked body in pieces split anywhere (with pauses between them), and
// optionally keep the body open until the client goes away. The server can require a client
// certificate signed by the test CA, or a bearer token (401 otherwise), and can close its idle
// keep-alive connections on demand, as an API server does after its idle timeout.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/kube/support/test_certs.h"

namespace sh::kubetest {

struct RecordedRequest {
  std::string method;
  std::string target;
  std::string body;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string clientCommonName;                // the client certificate's CN, if any
  std::uint64_t connectionId = 0;              // which accepted connection carried it

  std::string header(const std::string& lowerName) const {
    auto it = headers.find(lowerName);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct Reply {
  int status = 200;
  std::string body;  // sent with Content-Length, unless `pieces` are given
  std::string contentType = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};  // before the answer
  // A chunked body: each piece one chunk, flushed, `pieceDelay` apart.
  std::vector<std::string> pieces;
  std::chrono::milliseconds pieceDelay{0};
  bool holdOpen = false;  // after the pieces, no final chunk: wait until the client leaves
  bool close = false;     // close the connection after this answer
};

class HttpsResponder {
 public:
  struct Options {
    bool tls = true;
    TlsMaterial material;  // the server certificate and the CA that signs client certificates
    bool requireClientCert = false;
    std::string requiredToken;  // non-empty: requests without "Bearer <token>" get 401
  };
  using Handler = std::function<Reply(const RecordedRequest& request)>;

  // Listens on 127.0.0.1 on a free port. Throws std::runtime_error when it cannot.
  HttpsResponder(Options options, Handler handler);
  ~HttpsResponder();
  HttpsResponder(const HttpsResponder&) = delete;
  HttpsResponder& operator=(const HttpsResponder&) = delete;

  int port() const;
  std::string url() const;  // "https://127.0.0.1:<port>" (http:// without TLS)

  // Closes every connection that is waiting for its next request; returns how many.
  std::size_t closeIdleConnections();
  // Waits until `count` connections are in a state where they wait for a next request.
  bool waitForIdle(std::size_t count, std::chrono::milliseconds timeout);

  // Waits until at most `count` connections are open.
  bool waitForOpenAtMost(std::size_t count, std::chrono::milliseconds timeout);

  std::uint64_t connectionsAccepted() const;
  std::size_t connectionsOpen() const;
  std::vector<RecordedRequest> requests() const;
  // The token requests must carry from now on ("" = none).
  void setRequiredToken(const std::string& token);

  // Closes the listener and every connection and joins the threads. Idempotent.
  void stop();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sh::kubetest
