// The admin HTTP endpoints: HTTP/1.1 over TCP and/or a Unix socket (Boost.Beast).
//
// Endpoint contract (what operators and probes rely on):
//
//   GET  /healthz, /livez  200 "ok" (text/plain), or 503 with the reason.
//   GET  /readyz           200 "ok", or 503 "not ready: <reason>". Ready once the initial
//                          cluster state is loaded and the first profile generation is built;
//                          not ready while shutting down. Handler::readiness() decides.
//   GET  /configz          200 application/json: the effective configuration.
//   GET  /metrics          200 "text/plain; version=0.0.4; charset=utf-8" (Prometheus text).
//   GET  /status           200 application/json: generation, profiles, queue sizes, bindings in
//                          flight, pods without a profile, generations still draining, last
//                          reload (see host/cli/admin_commands.cc for the fields).
//   POST /reload           runs a reload and waits for it; the body is the result object
//                          {"kind":"Reload","generation":N,"result":"Applied"|"Rejected",
//                           "changed":[...],"error":"..."}: 200 when applied, 422 when
//                          rejected.
//   HEAD on a GET route    the GET response without its body.
//   Any other path 404; a known path with another method 405 with an Allow header. A handler
//   that throws gives 500 with the exception's message.
//
// Hostile clients: request headers are limited to 8 KiB (431 beyond) and bodies to 64 KiB
// (413); bytes that are not HTTP get 400 and the connection is closed. The first byte of a
// request must arrive within `idleTimeout` of the previous response (or of the connection),
// and the whole request within `readTimeout`, else the connection is dropped, idle keep-alive
// connections included.
//
// Connections: at most `maxConnections` are served at once, and at most
// `maxConnectionsPerPeer` of them from one peer (TCP: the client's IP address; Unix socket:
// the client's process, SO_PEERCRED). A connection beyond either limit is not refused: it goes
// to the probe lane, which answers one health or readiness request (GET or HEAD /healthz,
// /livez, /readyz) and closes; any other request there, or none within `probeLaneTimeout`,
// gets 503 "too many connections ..." and the connection is closed. The lane holds at most
// `maxProbeConnections`; a new arrival when it is full closes the oldest lane connection still
// waiting for its request (a probe sends its request at once; an idle connection does not), so
// idle connections, however many, never keep /healthz from answering. No exception escapes.
//
// Remote addresses: the endpoints have no authentication. A TCP address that is not loopback
// (0.0.0.0, a pod IP, a name resolving to one) is refused at start() unless
// `remoteHealthAndMetrics` is set ([admin] remoteHealthAndMetrics = true); that listener then
// serves only GET/HEAD /healthz, /livez, /readyz and /metrics, whoever connects, and answers
// every other request 403 with the reason. A loopback address and the Unix socket serve every
// endpoint.
//
// The Unix socket: if the path exists, start() refuses it unless it is a socket; a socket that
// answers a connection belongs to a live process ("admin socket PATH is in use by another
// process"); one that refuses connections is stale and replaced. stop() removes the path only
// while it is still the socket this server bound (same device and inode).
//
// Secure serving (ServerOptions::tls and ::gate), as kube-scheduler's secure port: the TCP
// listener speaks HTTPS and serves what kube-scheduler serves there, upstream's way:
//
//   GET  /healthz, /livez, /readyz   "ok"; with ?verbose every named check ("[+]ping ok"),
//                                    ?exclude=NAME leaves one out; on a failed check 500 with
//                                    the list ("[-]leaderElection failed: reason withheld")
//   GET  /healthz/NAME (and livez, readyz)   one check: "ok", or 500 "internal server error:
//                                    <why>". Handler::checks() names them.
//   GET  /metrics, /configz           as above
//   anything else                     404 "404 page not found"
//
// Every request of that listener is admitted by the gate first (authentication, then
// authorization: 401 and 403 with a Kubernetes Status body), before its path is looked at, as
// upstream's filter chain does. Any address may be bound then, loopback or not; the Unix
// socket, if any, stays the admin socket above.
//
// Threading: one io thread runs every socket operation asynchronously (accept, read, write,
// the per-connection timeouts). Each handler call runs on a thread of its own, started for the
// request, so that a slow call (a reload, a status that waits for a lock) never holds up the
// other connections; its response is handed back to the io thread to be written. stop() closes
// the listeners and every connection, asks running handler calls to give up through their
// std::stop_token, joins those threads and then the io thread: no thread outlives stop(). A
// handler call that ignores its stop token delays stop() until it returns.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/common/status.h"

namespace sh::admin {

// The answer of a health or readiness probe: ok, or why not.
struct Probe {
  bool ok = true;
  std::string reason;  // when not ok: served as the 503 body (readiness: "not ready: <reason>")
};

// The outcome of POST /reload.
struct ReloadOutcome {
  bool applied = false;  // 200 when true, 422 when false
  std::string json;      // the result object, served as the body
};

// The three health paths of the secure port, each with its named checks.
enum class HealthPath { kHealthz, kLivez, kReadyz };

// One named check's outcome: passed when `error` is empty.
struct CheckResult {
  std::string name;
  std::string error;
};

// A caller of the secure port as TLS and its request show it. Nothing here is verified: the
// gate decides whom the certificates and the headers vouch for.
struct Caller {
  // The request's header fields in the order they came, names as sent (a name may repeat):
  // Authorization, and the front proxy's X-Remote-User and the like.
  std::vector<std::pair<std::string, std::string>> headers;
  // The client certificate chain the peer presented, PEM, one certificate each, its own
  // first; empty when it presented none.
  std::vector<std::string> certificates;

  // The value of the first field named `name` (in any case); nullopt when there is none.
  std::optional<std::string_view> header(std::string_view name) const;
};

// The gate's answer about one request: served, or answered with this instead.
struct Admission {
  bool allowed = false;
  int status = 0;  // when not allowed: 401, 403, or 500 when the decision itself failed
  std::string contentType = "application/json";
  std::string body;  // a Kubernetes Status object, or the text of a 500
};

// Authentication and authorization of every request of a secure server (upstream's
// WithAuthentication and WithAuthorization filters). Called on the request's own thread, so
// it may block on the API server; honours `stop`; does not throw. `verb` is the method in
// lower case ("get"), `path` the request's path without its query.
class Gate {
 public:
  virtual ~Gate() = default;
  virtual Admission admit(std::string_view verb, std::string_view path, const Caller& caller,
                          std::stop_token stop) = 0;
};

// What the scheduler offers the endpoints. Every method may be called from several threads at
// once (one per request in progress) and must not throw for ordinary failures (a throw is a
// 500). The stop token is requested when the server stops: a call that waits should then
// return promptly, whatever it answers (it is not sent anywhere).
// An answer with its own status and type (/debug/pods).
struct DebugAnswer {
  int status = 200;
  std::string contentType;
  std::string body;
};

class Handler {
 public:
  virtual ~Handler() = default;
  // /healthz and /livez.
  virtual Probe health(std::stop_token stop) = 0;
  // /readyz.
  virtual Probe readiness(std::stop_token stop) = 0;
  // /configz: a JSON document.
  virtual std::string configJson(std::stop_token stop) = 0;
  // /metrics: Prometheus text exposition format 0.0.4.
  virtual std::string metricsText(std::stop_token stop) = 0;
  // /status: a JSON object.
  virtual std::string statusJson(std::stop_token stop) = 0;
  // POST /reload: runs a reload and returns when it has been applied or rejected.
  virtual ReloadOutcome reload(std::stop_token stop) = 0;
  // The secure port's named checks of one health path, in the order they are listed. By
  // default "ping" for /healthz and /livez, and "ready" (readiness()) for /readyz.
  virtual std::vector<CheckResult> checks(HealthPath path, std::stop_token stop);
  // GET /debug/pods/NAMESPACE/NAME[?format=json|text|html]: why the pod is pending, from its
  // last failed attempt (docs/explaining-decisions.md). By default 404: nothing is kept.
  virtual DebugAnswer debugPod(std::string_view podNamespace, std::string_view name,
                               std::string_view format, std::stop_token stop);
};

// The path prefix of debugPod(), and the types its answers carry.
inline constexpr std::string_view kDebugPodsPrefix = "/debug/pods/";
inline constexpr std::string_view kContentTypeJson = "application/json";
inline constexpr std::string_view kContentTypeText = "text/plain; charset=utf-8";
inline constexpr std::string_view kContentTypeHtml = "text/html; charset=utf-8";

struct ServerOptions {
  std::string address;  // TCP "host:port" (see parseTcpAddress); empty: no TCP listener
  std::string socket;   // Unix socket path; empty: none
  // Serve a TCP address that is not loopback, health and metrics only (see above).
  bool remoteHealthAndMetrics = false;
  std::chrono::milliseconds idleTimeout{5'000};   // the first byte of a request
  std::chrono::milliseconds readTimeout{10'000};  // the whole request
  std::size_t maxConnections = 64;
  std::size_t maxConnectionsPerPeer = 16;  // 0: no per-peer limit
  std::size_t maxProbeConnections = 16;    // the probe lane, beyond the limits
  std::chrono::milliseconds probeLaneTimeout{2'000};
  std::size_t headerLimit = 8 * 1024;
  std::size_t bodyLimit = 64 * 1024;
  // HTTPS on the TCP listener with this certificate chain and private key (PEM). With client
  // CAs, client certificates are asked for (not required), the CAs' names sent as the
  // acceptable ones; the chain a client presents goes to the gate as it came (Caller), which
  // verifies it against whichever CA it trusts for what (upstream's tls.RequestClientCert).
  // start() fails naming the part that does not load.
  struct Tls {
    std::string certificatePem;
    std::string privateKeyPem;
    std::string clientCaPem;  // every CA a client certificate may come from, concatenated
  };
  std::optional<Tls> tls;
  // Not null: the TCP listener is a secure server (see above), every request admitted by it.
  // Must outlive the server.
  Gate* gate = nullptr;
};

class Server {
 public:
  // `handler` must outlive the server (or at least stop()).
  Server(ServerOptions options, Handler& handler);
  ~Server();  // stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the listeners and starts the io thread. The error names the address or path and
  // the cause (bad address, address in use, permission denied, not a socket, ...); nothing is
  // left listening then. A server starts at most once.
  Status start();
  // Stops listening, closes every connection and joins every thread the server started;
  // removes the Unix socket if the path is still the one it bound. Idempotent.
  void stop();

  // The TCP port bound (useful with port 0); 0 when there is no TCP listener.
  uint16_t tcpPort() const;
  // Connections open now, the probe lane's included.
  std::size_t connectionCount() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sh::admin
