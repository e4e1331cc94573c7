// HttpsTransport: the Transport to a real API server, HTTP/1.1 over Boost.Beast and OpenSSL.
//
//   TLS        the server is verified against the configured CA (or the system trust store)
//              and its name: tls-server-name when set, else the URL's host; an IP address must
//              match an IP subjectAltName. insecureSkipTlsVerify verifies nothing. A client
//              certificate is presented when configured. http:// servers use plain TCP.
//   Auth       `Authorization: Bearer <token>` when a token is configured. A tokenFile is
//              re-read when the copy is older than `tokenRefresh` (client-go's
//              `transport/token_source.go` `cachingTokenSource` re-reads every minute), so
//              rotated projected service-account tokens are picked up; a file that becomes
//              unreadable keeps the last token, with one warning. A 401 reads the file again
//              at once and, when it holds another token, repeats the request once with it.
//   Limiter    every request, send() and stream(), first takes a token of one RateLimiter
//              (qps, burst; qps <= 0: unlimited).
//   Pool       send() takes an idle keep-alive connection or opens one, up to maxConnections
//              (callers beyond wait for one to be released), keeps it when the response allows
//              keep-alive and drops it on any error. A request on a reused connection that
//              fails before any response byte arrived (the server had closed the idle
//              connection) is sent once more on a fresh connection; nothing else is retried.
//   Streams    stream() opens a connection of its own, delivers each body piece to the sink as
//              it arrives (chunked encoding decoded), polls its stop token every 50 ms and
//              fails when nothing arrives for watchIdleTimeout.
//   Timeouts   connect + TLS handshake: connectTimeout; send(): requestTimeout for writing the
//              request and reading the whole response; stream(): requestTimeout until the
//              response header.
//
// Each connection has an io_context of its own that the calling thread runs while it holds
// the connection, so requests on different connections never contend. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "host/kube/rate_limiter.h"
#include "host/kube/rest_config.h"
#include "host/kube/transport.h"

namespace sh::kube {

class HttpsTransport final : public Transport {
 public:
  struct Options {
    RestConfig config;
    double qps = 50;
    int burst = 100;
    std::size_t maxConnections = 64;
    std::chrono::milliseconds connectTimeout{10000};
    std::chrono::milliseconds requestTimeout{30000};
    std::chrono::milliseconds watchIdleTimeout{660000};
    std::chrono::seconds tokenRefresh{60};
    std::string userAgent = "schedhost";
  };

  // Null with `error` set when the server URL, the CA, the client certificate or key, or the
  // token file is unusable.
  static std::unique_ptr<HttpsTransport> create(Options options, std::string& error);
  ~HttpsTransport() override;

  HttpsTransport(const HttpsTransport&) = delete;
  HttpsTransport& operator=(const HttpsTransport&) = delete;

  Response send(const Request& request) override;
  Response stream(const Request& request, const BodySink& sink, std::stop_token stop) override;
  std::string server() const override;

  // A GET of `path` (send()).
  Response get(const std::string& path);

  // Pool connections open now, idle or in use (streams not counted).
  std::size_t openConnections() const;
  // Requests written to a connection, retries and streams included.
  std::uint64_t requestsSent() const;
  const RateLimiter& rateLimiter() const;

  class Impl;

 private:
  explicit HttpsTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sh::kube
