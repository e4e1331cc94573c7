#include "host/admin/server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "host/admin/endpoint.h"
#include "host/admin/secure_routes.h"
#include "host/admin/tls.h"

namespace sh::admin {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Tcp = asio::ip::tcp;
using Local = asio::local::stream_protocol;
using ErrorCode = boost::system::error_code;

constexpr std::string_view kTextPlain = "text/plain; charset=utf-8";
constexpr std::string_view kJson = "application/json";
constexpr std::string_view kMetricsType = "text/plain; version=0.0.4; charset=utf-8";
constexpr std::string_view kHtml = kContentTypeHtml;
constexpr std::string_view kBusyResponse =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 21\r\nConnection: close\r\n\r\ntoo many connections\n";

enum class Route { kHealth, kReady, kConfig, kMetrics, kStatus, kReload };

struct RouteEntry {
  std::string_view path;
  Route route;
  bool post;  // POST only; else GET (and HEAD)
};

constexpr RouteEntry kRoutes[] = {
    {"/healthz", Route::kHealth, false},  {"/livez", Route::kHealth, false},
    {"/readyz", Route::kReady, false},    {"/configz", Route::kConfig, false},
    {"/metrics", Route::kMetrics, false}, {"/status", Route::kStatus, false},
    {"/reload", Route::kReload, true},
};

// What a restricted listener (a non-loopback address) and the probe lane serve.
bool readOnlyRoute(Route route) {
  return route == Route::kHealth || route == Route::kReady || route == Route::kMetrics;
}
bool probeRoute(Route route) { return route == Route::kHealth || route == Route::kReady; }

const RouteEntry* findRoute(std::string_view target) {
  auto query = target.find('?');
  if (query != std::string_view::npos) target = target.substr(0, query);
  for (const auto& entry : kRoutes) {
    if (entry.path == target) return &entry;
  }
  return nullptr;
}

// What a request is answered with, before it becomes an http::response.
struct Reply {
  http::status status = http::status::ok;
  std::string_view contentType = kTextPlain;
  std::string body;
  std::string allow;   // the Allow header of a 405
  bool close = false;  // close the connection after the response
};

Reply textReply(http::status status, std::string body, bool close = false) {
  Reply reply;
  reply.status = status;
  reply.body = std::move(body);
  if (reply.body.empty() || reply.body.back() != '\n') reply.body += '\n';
  reply.close = close;
  return reply;
}

Reply probeReply(const Probe& probe, std::string_view prefix) {
  if (probe.ok) return textReply(http::status::ok, "ok");
  std::string reason = probe.reason.empty() ? "unknown reason" : probe.reason;
  return textReply(http::status::service_unavailable, std::string(prefix) + reason);
}

// Runs one handler call; never throws.
Reply callHandler(Handler& handler, Route route, std::stop_token stop) {
  try {
    switch (route) {
      case Route::kHealth:
        return probeReply(handler.health(stop), "");
      case Route::kReady:
        return probeReply(handler.readiness(stop), "not ready: ");
      case Route::kConfig: {
        Reply reply{http::status::ok, kJson, handler.configJson(stop)};
        return reply;
      }
      case Route::kMetrics: {
        Reply reply{http::status::ok, kMetricsType, handler.metricsText(stop)};
        return reply;
      }
      case Route::kStatus: {
        Reply reply{http::status::ok, kJson, handler.statusJson(stop)};
        return reply;
      }
      case Route::kReload: {
        ReloadOutcome outcome = handler.reload(stop);
        Reply reply{outcome.applied ? http::status::ok : http::status::unprocessable_entity, kJson,
                    std::move(outcome.json)};
        return reply;
      }
    }
    return textReply(http::status::internal_server_error, "unknown route");
  } catch (const std::exception& e) {
    return textReply(http::status::internal_server_error,
                     std::string("internal error: ") + e.what());
  } catch (...) {
    return textReply(http::status::internal_server_error, "internal error");
  }
}

Reply secureReply(SecureAnswer answer) {
  Reply reply;
  reply.status = static_cast<http::status>(answer.status);
  // Reply::contentType views a constant: the answer's own string is gone once it is sent.
  for (std::string_view known : {kTextPlain, kJson, kMetricsType, kHtml}) {
    if (answer.contentType == known) reply.contentType = known;
  }
  reply.body = std::move(answer.body);
  return reply;
}

std::string causeOf(const ErrorCode& ec) { return ec.message(); }

bool isLoopback(const asio::ip::address& ip) {
  if (ip.is_v4()) return ip.to_v4().is_loopback();
  auto v6 = ip.to_v6();
  if (v6.is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, v6).is_loopback();
  return v6.is_loopback();
}

// Whether a process answers on the Unix socket at `path`.
enum class SocketState { kLive, kStale, kGone, kUnknown };

SocketState probeSocket(const Local::endpoint& endpoint, std::string& cause) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    cause = std::string("socket: ") + std::strerror(errno);
    return SocketState::kUnknown;
  }
  int rc = ::connect(fd, endpoint.data(), static_cast<socklen_t>(endpoint.size()));
  int error = rc == 0 ? 0 : errno;
  ::close(fd);
  if (rc == 0 || error == EAGAIN || error == EINPROGRESS) return SocketState::kLive;
  if (error == ECONNREFUSED) return SocketState::kStale;
  if (error == ENOENT) return SocketState::kGone;
  cause = std::string("connect: ") + std::strerror(error);
  return SocketState::kUnknown;
}

std::string peerOf(Tcp::socket& socket) {
  ErrorCode ec;
  auto remote = socket.remote_endpoint(ec);
  return ec ? std::string("tcp") : remote.address().to_string();
}

std::string peerOf(Local::socket& socket) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return "unix";
  }
  return "pid " + std::to_string(cred.pid);
}

}  // namespace

std::optional<std::string_view> Caller::header(std::string_view name) const {
  for (const auto& [fieldName, value] : headers) {
    if (beast::iequals(fieldName, name)) return std::string_view(value);
  }
  return std::nullopt;
}

DebugAnswer Handler::debugPod(std::string_view, std::string_view, std::string_view,
                              std::stop_token) {
  return {404, std::string(kTextPlain), "404 page not found\n"};
}

std::vector<CheckResult> Handler::checks(HealthPath path, std::stop_token stop) {
  if (path != HealthPath::kReadyz) return {{"ping", ""}};
  const Probe ready = readiness(stop);
  return {{"ready", ready.ok ? std::string() : ready.reason}};
}

// One connection, of either protocol: everything it does runs on the io thread.
class SessionBase {
 public:
  SessionBase(std::string peerKey, bool inLane) : peer(std::move(peerKey)), lane(inLane) {}
  virtual ~SessionBase() = default;
  virtual void close() = 0;
  // Still waiting for its request: the probe lane may close it for a newer arrival.
  virtual bool waiting() const = 0;

  const std::string peer;  // the per-peer key
  const bool lane;         // in the probe lane
};

class Server::Impl {
 public:
  Impl(ServerOptions options, Handler& handler) : options_(std::move(options)), handler_(handler) {}

  Status start();
  void stop();

  uint16_t tcpPort() const { return tcpPort_; }
  std::size_t connectionCount() const { return connections_.load(); }

  // Used by the sessions (io thread).
  const ServerOptions& options() const { return options_; }
  Handler& handler() { return handler_; }
  bool closing() const { return closing_; }
  void forget(SessionBase* session);
  // Why a probe-lane connection is not served: the limits, for its 503.
  std::string busyReason(const std::string& peer) const;
  // The 403 of a request a restricted listener does not serve.
  std::string remoteRefusal(std::string_view target) const;
  // Runs `fn` on a thread of its own; false when the server is stopping.
  bool spawn(std::function<void(std::stop_token)> fn);
  asio::io_context& ioContext() { return ioc_; }
  asio::ssl::context* tlsContext() { return tls_ ? &*tls_ : nullptr; }

 private:
  template <class Protocol>
  void accept(typename Protocol::acceptor& acceptor);
  template <class Protocol>
  void onAccept(typename Protocol::socket socket, bool restricted);
  // Makes room in the probe lane; false when every lane connection is being answered.
  bool roomInLane();
  void removeSocketIfOurs();
  Status listenTcp();
  Status listenUnix();
  void closeAll();  // io thread, or any thread once the io thread is gone

  struct Worker {
    std::atomic<bool> done{false};
    std::jthread thread;
  };

  // Declared first so that it goes last: handlers it still holds refer to the members below.
  asio::io_context ioc_;
  ServerOptions options_;
  Handler& handler_;
  std::optional<asio::ssl::context> tls_;
  std::optional<Tcp::acceptor> tcpAcceptor_;
  std::optional<Local::acceptor> unixAcceptor_;
  uint16_t tcpPort_ = 0;
  bool tcpRestricted_ = false;  // a non-loopback address: health and metrics only
  std::string tcpWhere_;        // the address as bound, for messages
  bool socketCreated_ = false;
  dev_t socketDev_ = 0;  // the inode this server bound at the socket path
  ino_t socketIno_ = 0;
  std::thread ioThread_;

  std::mutex lifecycleMutex_;
  bool started_ = false;
  bool stopped_ = false;

  // io thread only.
  bool closing_ = false;
  std::unordered_map<SessionBase*, std::weak_ptr<SessionBase>> sessions_;
  std::unordered_map<std::string, std::size_t> perPeer_;  // served connections by peer
  std::size_t served_ = 0;                                // connections outside the lane
  std::deque<std::weak_ptr<SessionBase>> lane_;           // oldest first
  std::size_t laneCount_ = 0;
  std::atomic<std::size_t> connections_{0};

  std::mutex workersMutex_;
  bool workersClosed_ = false;
  std::list<Worker> workers_;
};

namespace {

// IsTls: HTTPS over TCP (ServerOptions::tls): the handshake first, under the read timeout.
template <class Protocol, bool IsTls = false>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Protocol, IsTls>> {
 public:
  using Plain = beast::basic_stream<Protocol, asio::any_io_executor, beast::unlimited_rate_policy>;
  using Stream = std::conditional_t<IsTls, beast::ssl_stream<Plain>, Plain>;
  using Clock = std::chrono::steady_clock;

  // `restricted`: a non-loopback listener, health and metrics only. `lane`: beyond the
  // connection limits, one probe request only.
  Session(Server::Impl& server, typename Protocol::socket socket, std::string peerKey,
          bool restricted, bool inLane)
      : SessionBase(std::move(peerKey), inLane),
        server_(server),
        stream_(open(std::move(socket), server.tlsContext())),
        restricted_(restricted),
        laneTimer_(stream_.get_executor()) {}

  void run() {
    if constexpr (IsTls) {
      lowest().expires_after(server_.options().readTimeout);
      stream_.async_handshake(asio::ssl::stream_base::server,
                              [self = this->shared_from_this()](ErrorCode ec) {
                                if (ec || self->closed_ || self->server_.closing()) {
                                  return self->finish();  // not TLS, or a failed handshake
                                }
                                self->caller_ = callerOf(self->stream_.native_handle());
                                self->readRequest();
                              });
    } else {
      readRequest();
    }
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    laneTimer_.cancel();
    ErrorCode ec;
    lowest().socket().shutdown(Protocol::socket::shutdown_both, ec);
    lowest().close();
  }

  bool waiting() const override { return waiting_ && !closed_; }

 private:
  static Stream open(typename Protocol::socket socket, asio::ssl::context* tls) {
    if constexpr (IsTls) {
      return Stream(Plain(std::move(socket)), *tls);
    } else {
      (void)tls;
      return Stream(std::move(socket));
    }
  }
  Plain& lowest() { return beast::get_lowest_layer(stream_); }

  void finish() {
    close();
    server_.forget(this);
  }

  // Waits for the first byte of a request within the idle timeout, then for the whole request
  // within the read timeout; a lane connection has the lane's timeout for the whole request.
  void readRequest() {
    if (closed_ || server_.closing()) return finish();
    const ServerOptions& options = server_.options();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(options.headerLimit));
    parser_->body_limit(options.bodyLimit);
    waiting_ = true;
    if (lane) {
      // The stream's own timeout would close the socket; the lane's timer cancels the read
      // instead, so that the 503 can still be written.
      lowest().expires_never();
      laneTimer_.expires_after(std::min(options.readTimeout, options.probeLaneTimeout));
      laneTimer_.async_wait([self = this->shared_from_this()](ErrorCode ec) {
        if (ec || !self->waiting_ || self->closed_) return;
        self->laneExpired_ = true;
        ErrorCode ignored;
        self->lowest().socket().cancel(ignored);
      });
      return http::async_read(
          stream_, buffer_, *parser_,
          [self = this->shared_from_this()](ErrorCode ec, std::size_t) { self->onRead(ec); });
    }
    deadline_ = Clock::now() + options.readTimeout;
    if (buffer_.size() > 0) return readWhole();  // a pipelined request already arrived
    lowest().expires_after(std::min(options.idleTimeout, options.readTimeout));
    stream_.async_read_some(buffer_.prepare(kFirstRead),
                            [self = this->shared_from_this()](ErrorCode ec, std::size_t n) {
                              self->buffer_.commit(n);
                              if (ec || self->closed_ || self->server_.closing()) {
                                return self->finish();  // gone, or idle too long
                              }
                              self->readWhole();
                            });
  }

  void readWhole() {
    lowest().expires_at(deadline_);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](ErrorCode ec, std::size_t) { self->onRead(ec); });
  }

  void onRead(ErrorCode ec) {
    waiting_ = false;
    laneTimer_.cancel();
    if (closed_ || server_.closing()) return finish();
    if (ec) {
      if (ec == http::error::header_limit) {
        return respond(textReply(http::status::request_header_fields_too_large,
                                 "request headers too large", true),
                       11, false);
      }
      if (ec == http::error::body_limit) {
        return respond(textReply(http::status::payload_too_large, "request body too large", true),
                       11, false);
      }
      if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
          ec != http::error::end_of_stream && ec != http::error::partial_message) {
        return respond(textReply(http::status::bad_request, "bad request: " + ec.message(), true),
                       11, false);
      }
      if (lane && laneExpired_) {
        // A connection beyond the limits that asked nothing: say why it is not served.
        return respond(textReply(http::status::service_unavailable, server_.busyReason(peer), true),
                       11, false);
      }
      // The client went away, timed out, or the connection broke.
      return finish();
    }
    dispatch(parser_->release());
  }

  void dispatch(http::request<http::string_body> request) {
    if (std::is_same_v<Protocol, Tcp> && server_.options().gate != nullptr) {
      return dispatchSecure(std::move(request));
    }
    unsigned version = request.version();
    bool keepAlive = request.keep_alive() && !lane;
    http::verb method = request.method();
    if (isDebugPodTarget(request.target())) {
      return dispatchDebugPod(std::move(request), keepAlive);
    }
    const RouteEntry* entry = findRoute(request.target());
    bool readOnly = entry != nullptr && !entry->post && readOnlyRoute(entry->route) &&
                    (method == http::verb::get || method == http::verb::head);
    if (lane && !(readOnly && probeRoute(entry->route))) {
      return respond(textReply(http::status::service_unavailable, server_.busyReason(peer), true),
                     version, false);
    }
    if (restricted_ && !readOnly) {
      return respond(
          textReply(http::status::forbidden, server_.remoteRefusal(request.target()), !keepAlive),
          version, false);
    }
    if (entry == nullptr) {
      return respond(textReply(http::status::not_found, "not found", !keepAlive), version, false);
    }
    bool head = method == http::verb::head && !entry->post;
    bool allowed = entry->post ? method == http::verb::post
                               : (method == http::verb::get || method == http::verb::head);
    if (!allowed) {
      Reply reply = textReply(http::status::method_not_allowed, "method not allowed", !keepAlive);
      reply.allow = entry->post ? "POST" : "GET, HEAD";
      return respond(std::move(reply), version, false);
    }
    // The handler call runs off the io thread; no timeout meanwhile (a reload may take long).
    lowest().expires_never();
    Route route = entry->route;
    Handler& handler = server_.handler();
    auto self = this->shared_from_this();
    auto executor = stream_.get_executor();
    bool spawned = server_.spawn([self, executor, route, &handler, version, keepAlive,
                                  head](std::stop_token stop) mutable {
      Reply reply = callHandler(handler, route, stop);
      reply.close = reply.close || !keepAlive;
      asio::post(executor, [self = std::move(self), reply = std::move(reply), version,
                            head]() mutable { self->respond(std::move(reply), version, head); });
    });
    if (!spawned) finish();
  }

  // /debug/pods/NAMESPACE/NAME on a plain listener: what the pods are waiting for is for the
  // operator (the Unix socket and a loopback address), not for a restricted listener or the
  // probe lane.
  void dispatchDebugPod(http::request<http::string_body> request, bool keepAlive) {
    const unsigned version = request.version();
    const http::verb method = request.method();
    if (lane) {
      return respond(textReply(http::status::service_unavailable, server_.busyReason(peer), true),
                     version, false);
    }
    if (restricted_) {
      return respond(
          textReply(http::status::forbidden, server_.remoteRefusal(request.target()), !keepAlive),
          version, false);
    }
    if (method != http::verb::get && method != http::verb::head) {
      Reply reply = textReply(http::status::method_not_allowed, "method not allowed", !keepAlive);
      reply.allow = "GET, HEAD";
      return respond(std::move(reply), version, false);
    }
    const bool head = method == http::verb::head;
    lowest().expires_never();
    Handler& handler = server_.handler();
    auto self = this->shared_from_this();
    auto executor = stream_.get_executor();
    std::string target(request.target());
    bool spawned = server_.spawn([self, executor, &handler, version, keepAlive, head,
                                  target = std::move(target)](std::stop_token stop) mutable {
      Reply reply = secureReply(serveDebugPod(handler, target, stop));
      reply.close = reply.close || !keepAlive;
      asio::post(executor, [self = std::move(self), reply = std::move(reply), version,
                            head]() mutable { self->respond(std::move(reply), version, head); });
    });
    if (!spawned) finish();
  }

  // The secure port: the gate, then upstream's routes, on a thread of their own.
  void dispatchSecure(http::request<http::string_body> request) {
    const unsigned version = request.version();
    const bool keepAlive = request.keep_alive() && !lane;
    const bool head = request.method() == http::verb::head;
    const std::string target(request.target());
    if (lane && !isHealthTarget(target)) {
      return respond(textReply(http::status::service_unavailable, server_.busyReason(peer), true),
                     version, false);
    }
    std::string verb(request.method_string());
    std::transform(verb.begin(), verb.end(), verb.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    Caller caller = caller_;
    for (const auto& field : request) {
      caller.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    lowest().expires_never();
    Handler& handler = server_.handler();
    Gate& gate = *server_.options().gate;
    auto self = this->shared_from_this();
    auto executor = stream_.get_executor();
    bool spawned = server_.spawn([self, executor, &handler, &gate, version, keepAlive, head, target,
                                  verb = std::move(verb),
                                  caller = std::move(caller)](std::stop_token stop) mutable {
      Reply reply = secureReply(serveSecure(handler, gate, verb, target, caller, stop));
      reply.close = reply.close || !keepAlive;
      asio::post(executor, [self = std::move(self), reply = std::move(reply), version,
                            head]() mutable { self->respond(std::move(reply), version, head); });
    });
    if (!spawned) finish();
  }

  void respond(Reply reply, unsigned version, bool head) {
    if (closed_ || server_.closing()) return finish();
    response_.emplace();
    auto& response = *response_;
    response.version(version);
    response.result(reply.status);
    response.set(http::field::server, "schedhost");
    response.set(http::field::content_type, reply.contentType);
    if (!reply.allow.empty()) response.set(http::field::allow, reply.allow);
    response.keep_alive(!reply.close);
    if (head) {
      response.content_length(reply.body.size());
    } else {
      response.body() = std::move(reply.body);
      response.prepare_payload();
    }
    closeAfterWrite_ = reply.close;
    // A client that does not read its response is dropped like one that does not write.
    lowest().expires_after(server_.options().readTimeout);
    http::async_write(
        stream_, response,
        [self = this->shared_from_this()](ErrorCode ec, std::size_t) { self->onWrite(ec); });
  }

  void onWrite(ErrorCode ec) {
    response_.reset();
    if (ec) return finish();
    if (closeAfterWrite_) return lingerAndClose();
    readRequest();
  }

  // After an error response, the client may still be sending (the rest of oversized headers
  // or body): closing with unread bytes would reset the connection and could destroy the
  // response before the client reads it. So stop sending, discard what arrives for a short
  // while, then close.
  void lingerAndClose() {
    if (closed_ || server_.closing()) return finish();
    ErrorCode ignored;
    lowest().socket().shutdown(Protocol::socket::shutdown_send, ignored);
    lowest().expires_after(std::min<std::chrono::milliseconds>(server_.options().readTimeout,
                                                               std::chrono::seconds(2)));
    drain();
  }

  void drain() {
    stream_.async_read_some(asio::buffer(discard_),
                            [self = this->shared_from_this()](ErrorCode ec, std::size_t) {
                              if (ec || self->closed_ || self->server_.closing()) {
                                return self->finish();
                              }
                              self->drain();
                            });
  }

  static constexpr std::size_t kFirstRead = 4096;

  Server::Impl& server_;
  Stream stream_;
  const bool restricted_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  std::array<char, 4096> discard_{};
  Clock::time_point deadline_;
  asio::steady_timer laneTimer_;
  bool laneExpired_ = false;
  bool waiting_ = false;
  bool closed_ = false;
  bool closeAfterWrite_ = false;
  Caller caller_;  // TLS: the client certificate chain, read after the handshake
};

}  // namespace

bool Server::Impl::spawn(std::function<void(std::stop_token)> fn) {
  std::lock_guard lock(workersMutex_);
  if (workersClosed_) return false;
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done.load()) {
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
  Worker& worker = workers_.emplace_back();
  worker.thread = std::jthread([fn = std::move(fn), &worker](std::stop_token stop) {
    fn(stop);
    worker.done.store(true);
  });
  return true;
}

void Server::Impl::forget(SessionBase* session) {
  if (sessions_.erase(session) == 0) return;
  connections_.fetch_sub(1);
  if (session->lane) {
    --laneCount_;
    return;
  }
  --served_;
  auto it = perPeer_.find(session->peer);
  if (it != perPeer_.end() && --it->second == 0) perPeer_.erase(it);
}

std::string Server::Impl::busyReason(const std::string& peer) const {
  auto it = perPeer_.find(peer);
  std::size_t fromPeer = it == perPeer_.end() ? 0 : it->second;
  std::string why;
  if (options_.maxConnectionsPerPeer != 0 && fromPeer >= options_.maxConnectionsPerPeer) {
    why = std::to_string(fromPeer) + " connections from " + peer + " are open (at most " +
          std::to_string(options_.maxConnectionsPerPeer) + " per peer)";
  } else {
    why = std::to_string(served_) + " connections are open (at most " +
          std::to_string(options_.maxConnections) + ")";
  }
  return "too many connections: " + why +
         "; only /healthz, /livez and /readyz are answered beyond that";
}

std::string Server::Impl::remoteRefusal(std::string_view target) const {
  auto query = target.find('?');
  if (query != std::string_view::npos) target = target.substr(0, query);
  return "forbidden: " + std::string(target) + " is not served on admin address " + tcpWhere_ +
         ", which is not a loopback address: the admin endpoints have no authentication, so it "
         "serves only GET /healthz, /livez, /readyz and /metrics; use a loopback address or the "
         "admin socket";
}

bool Server::Impl::roomInLane() {
  // Forget lane entries already gone.
  std::erase_if(lane_, [](const std::weak_ptr<SessionBase>& entry) { return entry.expired(); });
  if (laneCount_ < options_.maxProbeConnections) return true;
  // Full: close the oldest connection still waiting for its request.
  for (auto it = lane_.begin(); it != lane_.end(); ++it) {
    auto session = it->lock();
    if (session != nullptr && session->waiting()) {
      lane_.erase(it);
      session->close();  // its read completes aborted and the session forgets itself
      forget(session.get());
      return true;
    }
  }
  return false;
}

template <class Protocol>
void Server::Impl::accept(typename Protocol::acceptor& acceptor) {
  acceptor.async_accept([this, &acceptor](ErrorCode ec, typename Protocol::socket socket) {
    if (closing_ || ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of descriptors or a connection reset before it was accepted: try again shortly
      // rather than spin.
      auto timer = std::make_shared<asio::steady_timer>(ioc_, std::chrono::milliseconds(100));
      timer->async_wait([this, &acceptor, timer](ErrorCode) {
        if (!closing_) accept<Protocol>(acceptor);
      });
      return;
    }
    bool restricted = false;
    if constexpr (std::is_same_v<Protocol, Tcp>) restricted = tcpRestricted_;
    onAccept<Protocol>(std::move(socket), restricted);
    accept<Protocol>(acceptor);
  });
}

template <class Protocol>
void Server::Impl::onAccept(typename Protocol::socket socket, bool restricted) {
  std::string peer = peerOf(socket);
  auto it = perPeer_.find(peer);
  std::size_t fromPeer = it == perPeer_.end() ? 0 : it->second;
  bool lane = served_ >= options_.maxConnections ||
              (options_.maxConnectionsPerPeer != 0 && fromPeer >= options_.maxConnectionsPerPeer);
  if (lane && !roomInLane()) {
    // Every lane connection is being answered. Best effort: the answer fits in the socket
    // buffer; a client that sent a request it will not have read may see a reset instead.
    ErrorCode ec;
    socket.non_blocking(true, ec);
    asio::write(socket, asio::buffer(kBusyResponse.data(), kBusyResponse.size()), ec);
    socket.shutdown(Protocol::socket::shutdown_send, ec);
    socket.close(ec);
    return;
  }
  std::shared_ptr<SessionBase> session;
  std::function<void()> run;
  if constexpr (std::is_same_v<Protocol, Tcp>) {
    if (tls_) {
      auto tls = std::make_shared<Session<Protocol, true>>(*this, std::move(socket), peer,
                                                           restricted, lane);
      run = [tls] { tls->run(); };
      session = std::move(tls);
    }
  }
  if (session == nullptr) {
    auto plain =
        std::make_shared<Session<Protocol>>(*this, std::move(socket), peer, restricted, lane);
    run = [plain] { plain->run(); };
    session = std::move(plain);
  }
  sessions_.emplace(session.get(), session);
  connections_.fetch_add(1);
  if (lane) {
    ++laneCount_;
    lane_.push_back(session);
  } else {
    ++served_;
    ++perPeer_[peer];
  }
  run();
}

Status Server::Impl::listenTcp() {
  TcpAddress address;
  Status parsed = parseTcpAddress(options_.address, address);
  if (!parsed.ok()) return parsed;
  std::string where =
      (options_.gate != nullptr ? "secure address " : "admin address ") + options_.address;
  ErrorCode ec;
  Tcp::endpoint endpoint;
  auto ip = asio::ip::make_address(address.host, ec);
  if (!ec) {
    endpoint = Tcp::endpoint(ip, address.port);
  } else {
    Tcp::resolver resolver(ioc_);
    auto results = resolver.resolve(address.host, std::to_string(address.port), ec);
    if (ec || results.empty()) {
      return Status::error("cannot listen on " + where + ": cannot resolve \"" + address.host +
                           "\": " + (ec ? causeOf(ec) : "no address"));
    }
    endpoint = results.begin()->endpoint();
  }
  // A secure server authenticates and authorizes every request: any address will do.
  tcpRestricted_ = options_.gate == nullptr && !isLoopback(endpoint.address());
  if (tcpRestricted_ && !options_.remoteHealthAndMetrics) {
    std::string resolved = endpoint.address().to_string();
    return Status::error(
        "cannot listen on " + where + ": " +
        (resolved == address.host ? std::string() : "it resolves to " + resolved + ", ") +
        "not a loopback address, and the admin endpoints have no authentication; set "
        "remoteHealthAndMetrics = true in [admin] to serve only /healthz, /livez, /readyz and "
        "/metrics there, or listen on 127.0.0.1 or the admin socket");
  }
  auto& acceptor = tcpAcceptor_.emplace(ioc_);
  auto fail = [&](const ErrorCode& error) {
    ErrorCode ignored;
    acceptor.close(ignored);
    tcpAcceptor_.reset();
    return Status::error("cannot listen on " + where + ": " + causeOf(error));
  };
  if (acceptor.open(endpoint.protocol(), ec)) return fail(ec);
  if (acceptor.set_option(asio::socket_base::reuse_address(true), ec)) return fail(ec);
  if (acceptor.bind(endpoint, ec)) return fail(ec);
  if (acceptor.listen(asio::socket_base::max_listen_connections, ec)) return fail(ec);
  tcpPort_ = acceptor.local_endpoint(ec).port();
  tcpWhere_ = options_.address;
  return Status::success();
}

void Server::Impl::removeSocketIfOurs() {
  if (!socketCreated_) return;
  socketCreated_ = false;
  // Another process may have replaced the path since: remove only the inode bound here.
  struct stat st {};
  if (::lstat(options_.socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) &&
      st.st_dev == socketDev_ && st.st_ino == socketIno_) {
    ::unlink(options_.socket.c_str());
  }
}

Status Server::Impl::listenUnix() {
  const std::string& path = options_.socket;
  std::string where = "admin socket " + path;
  Local::endpoint endpoint;
  try {
    endpoint = Local::endpoint(path);
  } catch (const std::exception& e) {
    return Status::error("cannot listen on " + where + ": " + e.what());
  }
  auto& acceptor = unixAcceptor_.emplace(ioc_);
  ErrorCode ec;
  auto fail = [&](const std::string& cause) {
    ErrorCode ignored;
    acceptor.close(ignored);
    unixAcceptor_.reset();
    return Status::error("cannot listen on " + where + ": " + cause);
  };
  if (acceptor.open(endpoint.protocol(), ec)) return fail(causeOf(ec));
  // Bind first: a path that is free is taken at once, with no window for another process.
  if (acceptor.bind(endpoint, ec) && ec == asio::error::address_in_use) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno != ENOENT) return fail(std::strerror(errno));
    } else if (!S_ISSOCK(st.st_mode)) {
      return fail("the path exists and is not a socket; refusing to replace it");
    } else {
      std::string cause;
      switch (probeSocket(endpoint, cause)) {
        case SocketState::kLive: {
          ErrorCode ignored;
          acceptor.close(ignored);
          unixAcceptor_.reset();
          return Status::error(where + " is in use by another process");
        }
        case SocketState::kStale:
          // Left behind by a process that is gone: nothing answers on it.
          if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
            return fail(std::string("cannot remove the stale socket: ") + std::strerror(errno));
          }
          break;
        case SocketState::kGone:
          break;
        case SocketState::kUnknown:
          return fail("cannot tell whether another process uses it (" + cause +
                      "); refusing to replace it");
      }
    }
    ec = {};
    acceptor.bind(endpoint, ec);
    if (ec == asio::error::address_in_use) {
      return fail("another process took the path while the stale socket was replaced");
    }
  }
  if (ec) return fail(causeOf(ec));
  struct stat bound {};
  if (::lstat(path.c_str(), &bound) == 0) {
    socketCreated_ = true;
    socketDev_ = bound.st_dev;
    socketIno_ = bound.st_ino;
  }
  if (::chmod(path.c_str(), 0660) != 0) {
    std::string cause = std::string("chmod 0660: ") + std::strerror(errno);
    removeSocketIfOurs();
    return fail(cause);
  }
  if (acceptor.listen(asio::socket_base::max_listen_connections, ec)) {
    removeSocketIfOurs();
    return fail(causeOf(ec));
  }
  return Status::success();
}

Status Server::Impl::start() {
  std::lock_guard lock(lifecycleMutex_);
  if (started_) return Status::error("admin server already started");
  if (options_.address.empty() && options_.socket.empty()) {
    return Status::error("admin server: neither an address nor a socket is configured");
  }
  if (options_.tls) {
    std::string error;
    tls_ = makeTlsContext(*options_.tls, error);
    if (!tls_) return Status::error("HTTPS on " + options_.address + ": " + error);
  }
  if (!options_.address.empty()) {
    Status status = listenTcp();
    if (!status.ok()) return status;
  }
  if (!options_.socket.empty()) {
    Status status = listenUnix();
    if (!status.ok()) {
      if (tcpAcceptor_) {
        ErrorCode ignored;
        tcpAcceptor_->close(ignored);
        tcpAcceptor_.reset();
        tcpPort_ = 0;
      }
      return status;
    }
  }
  started_ = true;
  if (tcpAcceptor_) accept<Tcp>(*tcpAcceptor_);
  if (unixAcceptor_) accept<Local>(*unixAcceptor_);
  ioThread_ = std::thread([this] {
    for (;;) {
      try {
        ioc_.run();
        return;
      } catch (...) {  // NOLINT(bugprone-empty-catch): a failed handler must not end serving
      }
    }
  });
  return Status::success();
}

void Server::Impl::closeAll() {
  closing_ = true;
  ErrorCode ignored;
  if (tcpAcceptor_) tcpAcceptor_->close(ignored);
  if (unixAcceptor_) unixAcceptor_->close(ignored);
  for (auto& [raw, weak] : sessions_) {
    if (auto session = weak.lock()) session->close();
  }
}

void Server::Impl::stop() {
  std::lock_guard lock(lifecycleMutex_);
  if (!started_ || stopped_) return;
  stopped_ = true;
  asio::post(ioc_, [this] { closeAll(); });
  std::list<Worker> workers;
  {
    std::lock_guard workersLock(workersMutex_);
    workersClosed_ = true;
    workers.splice(workers.end(), workers_);
  }
  for (auto& worker : workers) worker.thread.request_stop();
  for (auto& worker : workers) worker.thread.join();
  ioc_.stop();
  ioThread_.join();
  // The io thread is gone: finish what it left here, on this thread.
  closeAll();
  ioc_.restart();
  try {
    ioc_.poll();
  } catch (...) {  // NOLINT(bugprone-empty-catch): nothing is left to serve
  }
  sessions_.clear();
  lane_.clear();
  removeSocketIfOurs();
}

Server::Server(ServerOptions options, Handler& handler)
    : impl_(std::make_unique<Impl>(std::move(options), handler)) {}

Server::~Server() { stop(); }

Status Server::start() { return impl_->start(); }
void Server::stop() { impl_->stop(); }
uint16_t Server::tcpPort() const { return impl_->tcpPort(); }
std::size_t Server::connectionCount() const { return impl_->connectionCount(); }

}  // namespace sh::admin
