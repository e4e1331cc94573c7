// Transport: how the Kubernetes API connector talks to an API server. One interface, two
// implementations: HttpsTransport (https_transport.h: Boost.Beast over OpenSSL, a keep-alive
// connection pool, the client-side rate limiter, bearer tokens re-read from their file) and the
// scripted transports of the unit tests. Everything above it (reflectors, binds, status
// patches, events, the Lease) sees only requests and responses.
//
// Requests carry a path with its query already escaped ("/api/v1/pods?limit=500&..."); bodies
// are JSON, or protobuf where the connector is configured for it (proto/transcode.h). Responses are
// whole for send(), and arrive piece by piece for stream() (watches), where pieces have nothing to
// do with lines or JSON objects: the caller reassembles them.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

namespace sh::kube {

enum class Method { kGet, kPost, kPut, kPatch, kDelete };

// Which client-side rate limiter a request waits for: binds, events and the rest each have
// their own, so that a flood of status patches or events never delays a bind.
enum class RateClass { kGeneral, kBinding, kEvents };

// "GET", "POST", ...
std::string_view methodName(Method method);

struct Request {
  Method method = Method::kGet;
  std::string path;  // absolute path and query, escaped: "/api/v1/namespaces/ns/pods/p/binding"
  std::string body;  // empty: no body
  // The body's type: "application/json", "application/strategic-merge-patch+json",
  // "application/merge-patch+json". Ignored without a body.
  std::string contentType = "application/json";
  // The Accept header: what the answer may be encoded in, in order of preference. Protobuf
  // is asked for ("application/vnd.kubernetes.protobuf, application/json") only for the kinds
  // that have a schema (proto/schema.h); the API server answers a kind it cannot encode so
  // (a custom resource) in JSON, and Response::contentType says which came.
  std::string accept = "application/json";
  // send() only. The whole request — the rate limiter's wait, a connection of the pool,
  // connect, TLS, writing and reading — ends within `timeout` (0: the transport's own request
  // timeout; a longer one is cut to it), as client-go's context deadline does: leader
  // election renews under its renew deadline this way. `stop` cancels it at once. Either ends
  // it with status 0 and an error saying which.
  std::chrono::milliseconds timeout{0};
  std::stop_token stop;
  RateClass rateClass = RateClass::kGeneral;
};

struct Response {
  int status = 0;     // the HTTP status; 0 when no response came (see error)
  std::string body;   // the whole body for send(); for stream(), only a non-2xx answer's body
  std::string error;  // why no response came ("connect: Connection refused", "TLS handshake:
                      // certificate verify failed", "timed out after 30 s"); empty otherwise
  int retryAfterSeconds = 0;  // a Retry-After header in seconds (429, 503); 0 when absent
  std::string location;       // a redirect's Location header (3xx); redirects are not followed
  std::string contentType;    // the answer's Content-Type header ("" when absent)
  bool cancelled = false;     // ended by Request::stop or the transport's shutdown, not the server

  bool ok() const { return status >= 200 && status < 300; }
  // 429 Too Many Requests and 5xx: worth trying again later. So is a transport error, unless
  // the request was cancelled: then nobody wants it any more.
  bool retryable() const { return !cancelled && (status == 0 || status == 429 || status >= 500); }
};

// What went wrong, for messages: the transport error, or "403 Forbidden: <the Status message>"
// (the body's message when it is a Kubernetes Status, in JSON or protobuf, else its first 200
// bytes); a redirect
// names where it pointed: "302 Found: redirected to https://elsewhere/api (not followed)".
std::string describeFailure(const Response& response);

// The answer's body as JSON: parsed, or decoded from protobuf when its Content-Type says so
// (proto/transcode.h). False with `error` saying why not.
bool parseBody(const Response& response, boost::json::value& out, std::string& error,
               const boost::json::storage_ptr& storage = {});

// Receives a watch body piece by piece; returns false to end the stream.
using BodySink = std::function<bool(std::string_view piece)>;

class Transport {
 public:
  virtual ~Transport() = default;

  // One request and its whole response. Waits for the rate limiter, then for a connection of
  // the pool. A transport error (status 0) is not retried here. Thread-safe.
  virtual Response send(const Request& request) = 0;

  // A long-running GET (a watch). Counts against the rate limiter like send(). When the answer
  // is 2xx, every piece of the body goes to `sink` as it arrives, and stream() returns (with
  // that status and an empty body) when the server ends the body, `sink` returns false, `stop`
  // is requested (within about 100 ms), or nothing arrives for longer than the idle timeout
  // (an error then). A non-2xx answer is returned whole, without calling `sink`. Uses a
  // connection of its own, not one of the pool's. Thread-safe.
  virtual Response stream(const Request& request, const BodySink& sink, std::stop_token stop) = 0;

  // "https://host:port", for messages.
  virtual std::string server() const = 0;
};

}  // namespace sh::kube
