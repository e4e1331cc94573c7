// HttpsTransport: the Transport to a real API server, HTTP/1.1 over Boost.Beast and OpenSSL.
//
//   TLS        the server is verified against the configured CA (or the system trust store)
//              and its name: tls-server-name when set, else the URL's host; an IP address must
//              match an IP subjectAltName. insecureSkipTlsVerify verifies nothing. A client
//              certificate is presented when configured. http:// servers use plain TCP.
//   Auth       `Authorization: Bearer <token>` when a token is configured. A token holding a
//              control character (CR, LF, ...) is refused: it would end the header and inject
//              others. A tokenFile is re-read every `tokenRefresh` (client-go's
//              `transport/token_source.go` `cachingTokenSource` re-reads every minute) by a
//              thread of its own, never on a request's path: without blocking, regular files
//              only, bounded (host/common/regular_file.h), so rotated projected service-account
//              tokens are picked up and a FIFO or a huge file swapped in holds up nothing. A
//              read that fails keeps the last good token, with one warning. A 401 asks for a
//              read at once, waits for it at most a second and, when the file holds another
//              token, repeats the request once with it.
//   Exec       a user's exec credential plugin (exec_credential.h) gives the token, the client
//              certificate, or both: asked for on the request's path (cached until it expires;
//              a request waits for the plugin's run), and again after a 401 with what it gave,
//              once, the request then repeated once. A new certificate is used by new
//              connections; idle ones are closed.
//   Limiter    every request, send() and stream(), first takes a token of the RateLimiter of
//              its RateClass (transport.h): one for binds, one for events and one for the
//              rest, each with qps and burst (qps <= 0: unlimited), so that status patches and
//              events never hold up a bind. client-go gives each clientset a limiter of its
//              own the same way; kube-scheduler's events have their own clientset.
//   Pool       send() takes an idle keep-alive connection or opens one, up to maxConnections
//              (callers beyond wait for one to be released), keeps it when the response allows
//              keep-alive and drops it on any error. A request on a reused connection that
//              fails before any response byte arrived (the server had closed the idle
//              connection) is sent once more on a fresh connection; nothing else is retried.
//   Streams    stream() opens a connection of its own, delivers each body piece to the sink as
//              it arrives (chunked encoding decoded), polls its stop token every 50 ms and
//              fails when nothing arrives for watchIdleTimeout.
//   Timeouts   connect + TLS handshake: connectTimeout; send(): the whole request (rate
//              limiter, pool, resolve, connect, TLS, write, read) within Request::timeout, or
//              requestTimeout when that is 0 or longer; Request::stop cancels it; stream():
//              requestTimeout until the response header.
//   Bounds     an answer read whole is at most limits::kMaxResponseBytes (a larger declared
//              Content-Length is refused before anything is allocated; a chunked body is
//              counted as it arrives), a non-2xx answer's body at most kMaxErrorBodyBytes,
//              headers at most kMaxResponseHeaderBytes; each is an error naming the request
//              ("GET /api/v1/pods?limit=500: the answer is larger than the limit of 256 MiB").
//              A redirect is not followed: its Location is reported (describeFailure).
//   Shutdown   cancelAll() ends every request in flight, streams included, and fails every
//              later one at once: what a stopping process calls once its own bounded steps
//              are done, so that no thread waits on a server that does not answer.
//
// Each connection has an io_context of its own that the calling thread runs while it holds
// the connection, so requests on different connections never contend. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "host/common/limits.h"
#include "host/connectors/kube/exec_credential.h"
#include "host/connectors/kube/rate_limiter.h"
#include "host/connectors/kube/rest_config.h"
#include "host/connectors/kube/transport.h"

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
    std::chrono::milliseconds tokenRefresh{60000};
    // One run of an exec credential plugin (client-go sets none; a plugin that hangs would
    // hold every request).
    std::chrono::milliseconds execTimeout{60000};
    // The largest answer send() reads whole (limits::kMaxResponseBytes; smaller in tests).
    std::size_t maxResponseBytes = limits::kMaxResponseBytes;
    std::string userAgent = "schedhost";
    // Not empty: clientConnection asks for protobuf, and this is the Accept header of its
    // requests. send() then writes a POST or PUT of a kind with a protobuf schema (a Binding,
    // an Event, a Lease) in protobuf and hands its answer back as JSON; lists and watches ask
    // for it themselves (Reflector::Options::protobufAccept).
    std::string protobufAccept;
    // Called once per request that got an answer or failed on the way (a try again after a
    // 401 is a request of its own; a cancelled one is not counted): its method ("GET"), the
    // answer's status (0: none came) and, for send(), the time from the call, the rate
    // limiter's wait included, to the whole answer; a stream's latency is 0 and it is reported
    // when it ends. client-go's rest_client_requests_total and
    // rest_client_request_duration_seconds are made from it. Runs on the requesting thread.
    std::function<void(std::string_view method, int status, std::chrono::nanoseconds latency)>
        onRequest;
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

  // Ends every request in flight ("cancelled: the client is shutting down") and fails every
  // later one at once. Thread-safe; cannot be undone.
  void cancelAll();

  // Pool connections open now, idle or in use (streams not counted).
  std::size_t openConnections() const;
  // Requests written to a connection, retries and streams included.
  std::uint64_t requestsSent() const;
  const RateLimiter& rateLimiter(RateClass rateClass = RateClass::kGeneral) const;
  // Times the exec credential plugin was started (0 without one).
  std::uint64_t execCredentialRuns() const;

  class Impl;

 private:
  explicit HttpsTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sh::kube
