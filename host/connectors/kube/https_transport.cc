#include "host/connectors/kube/https_transport.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

#include "host/common/limits.h"
#include "host/common/regular_file.h"
#include "host/common/trim.h"
#include "host/connectors/kube/proto/transcode.h"

namespace sh::kube {
namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using Tcp = asio::ip::tcp;
using ErrorCode = boost::system::error_code;
using HttpRequest = http::request<http::string_body>;

constexpr std::chrono::milliseconds kStopPoll{50};
constexpr std::size_t kStreamBuffer = 64 * 1024;
constexpr std::size_t kMaxErrorBody = limits::kMaxErrorBodyBytes;
constexpr auto kHeaderLimit = static_cast<std::uint32_t>(limits::kMaxResponseHeaderBytes);
// How long a request that met a 401 waits for the token file to be read again.
constexpr std::chrono::milliseconds kTokenRereadWait{1000};
using SteadyClock = std::chrono::steady_clock;
using Credential = std::shared_ptr<const ExecCredential>;

struct ServerUrl {
  bool tls = true;
  std::string host;       // without brackets
  std::string port;       // "443" when not given
  std::string authority;  // host[:port] as written, for the Host header
  std::string prefix;     // a path before the API paths ("" or "/k8s/clusters/c-1")
};

bool parseServer(const std::string& server, ServerUrl& url, std::string& error) {
  std::string_view rest = server;
  if (rest.rfind("https://", 0) == 0) {
    url.tls = true;
    rest.remove_prefix(8);
  } else if (rest.rfind("http://", 0) == 0) {
    url.tls = false;
    rest.remove_prefix(7);
  } else {
    error = "server \"" + server + "\": not an https:// or http:// URL";
    return false;
  }
  auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (authority.find('@') != std::string_view::npos) {
    // Never sent to a resolver as a host name, never echoed (it may hold a password).
    error =
        "server URL holds user information (user:password@host): not supported; "
        "credentials belong in the kubeconfig's user entry";
    return false;
  }
  if (slash != std::string_view::npos) {
    url.prefix = std::string(rest.substr(slash));
    while (!url.prefix.empty() && url.prefix.back() == '/') url.prefix.pop_back();
  }
  url.authority = std::string(authority);
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos) {
      error = "server \"" + server + "\": unterminated [ in the host";
      return false;
    }
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        error = "server \"" + server + "\": bad host";
        return false;
      }
      port = after.substr(1);
    }
  } else {
    auto colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (url.host.empty()) {
    error = "server \"" + server + "\": no host";
    return false;
  }
  int portNumber = 0;
  if (!port.empty()) {
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), portNumber);
    if (ec != std::errc() || end != port.data() + port.size() || portNumber <= 0 ||
        portNumber > 65535) {
      error = "server \"" + server + "\": bad port \"" + std::string(port) + "\"";
      return false;
    }
  }
  url.port = port.empty() ? (url.tls ? "443" : "80") : std::string(port);
  return true;
}

bool isIpAddress(const std::string& host) {
  ErrorCode ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

std::string formatDuration(std::chrono::milliseconds duration) {
  if (duration.count() % 1000 == 0) return std::to_string(duration.count() / 1000) + " s";
  return std::to_string(duration.count()) + " ms";
}

bool readTokenFile(const std::string& path, std::string& token, std::string& error) {
  std::optional<std::string> text = readRegularFile(path, limits::kMaxCredentialFileBytes, error);
  if (!text) {
    return false;
  }
  token = std::string(trimmed(*text));
  if (token.empty()) {
    error = path + " is empty";
    return false;
  }
  if (std::string why = bearerTokenProblem(token); !why.empty()) {
    error = path + ": " + why;
    return false;
  }
  return true;
}

// One connection: its own io_context, run by whichever thread holds the connection.
struct Connection {
  asio::io_context ioc{1};
  std::shared_ptr<ssl::context> context;  // what `tls` was made with; outlives it
  std::optional<beast::tcp_stream> plain;
  std::optional<ssl::stream<beast::tcp_stream>> tls;
  beast::flat_buffer buffer;
  bool reused = false;

  beast::tcp_stream& tcp() { return tls ? tls->next_layer() : *plain; }
  template <class Fn>
  void withStream(Fn&& fn) {
    if (tls) {
      fn(*tls);
    } else {
      fn(*plain);
    }
  }
  void close() {
    ErrorCode ec;
    tcp().socket().shutdown(Tcp::socket::shutdown_both, ec);
    tcp().socket().close(ec);
  }
};

// What may end an operation before it completes: the caller's stop token, the transport's
// shutdown (cancelAll), and a deadline.
enum class Ended { kDone, kStopped, kShutdown, kDeadline };
struct Cancel {
  std::stop_token stop;
  const std::atomic<bool>* shutdown = nullptr;
  std::optional<SteadyClock::time_point> deadline;

  Ended check() const {
    if (shutdown != nullptr && shutdown->load(std::memory_order_acquire)) return Ended::kShutdown;
    if (stop.stop_requested()) return Ended::kStopped;
    if (deadline && SteadyClock::now() >= *deadline) return Ended::kDeadline;
    return Ended::kDone;
  }
};

// Runs the connection's io_context until `done`, checking `cancel` every kStopPoll; when it
// ends the operation, aborts it (`abort`, else by closing the socket), lets the handlers finish
// and says why.
Ended runUntil(Connection& connection, const bool& done, const Cancel& cancel,
               const std::function<void()>& abort = {}) {
  connection.ioc.restart();
  while (!done) {
    connection.ioc.run_for(kStopPoll);
    if (done) break;
    if (const Ended why = cancel.check(); why != Ended::kDone) {
      if (abort) {
        abort();
      } else {
        connection.close();
      }
      connection.ioc.restart();
      connection.ioc.run();
      return why;
    }
    connection.ioc.restart();
  }
  return Ended::kDone;
}

std::string endedText(Ended why, std::chrono::milliseconds timeout) {
  switch (why) {
    case Ended::kStopped:
      return "cancelled";
    case Ended::kShutdown:
      return "cancelled: the client is shutting down";
    case Ended::kDeadline:
      return "timed out after " + formatDuration(timeout);
    case Ended::kDone:
      break;
  }
  return "";
}

std::string describe(const ErrorCode& ec, std::chrono::milliseconds timeout) {
  if (ec == beast::error::timeout) return "timed out after " + formatDuration(timeout);
  if (ec == ssl::error::stream_truncated || ec == http::error::end_of_stream ||
      ec == asio::error::eof) {
    return "connection closed by the server";
  }
  return ec.message();
}

bool closedBeforeAnswer(const ErrorCode& ec) {
  return ec && ec != beast::error::timeout && ec != asio::error::operation_aborted;
}

// The TLS context for `config`'s CA (or the system trust store, or no verification), with the
// client certificate and key when given. Null with `error` (prefixed with `where`) when one of
// them is unusable.
std::shared_ptr<ssl::context> makeSslContext(const RestConfig& config, const std::string& certPem,
                                             const std::string& keyPem, const std::string& where,
                                             std::string& error) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
  ErrorCode ec;
  if (config.insecureSkipTlsVerify) {
    if (!config.caPem.empty()) {
      error = where + "specifying a root certificates file with the insecure flag is not allowed";
      return nullptr;
    }
    context->set_verify_mode(ssl::verify_none);
  } else {
    context->set_verify_mode(ssl::verify_peer);
    if (!config.caPem.empty()) {
      context->add_certificate_authority(asio::buffer(config.caPem), ec);
      if (ec) {
        error =
            where + "certificate authority: not a usable PEM certificate (" + ec.message() + ")";
        return nullptr;
      }
    } else {
      context->set_default_verify_paths(ec);
      if (ec) {
        error = where + "system trust store: " + ec.message();
        return nullptr;
      }
    }
  }
  if (certPem.empty() != keyPem.empty()) {
    error = where + "a client certificate and a client key must be given together";
    return nullptr;
  }
  if (!certPem.empty()) {
    context->use_certificate_chain(asio::buffer(certPem), ec);
    if (ec) {
      error = where + "client certificate: not a usable PEM certificate (" + ec.message() + ")";
      return nullptr;
    }
    context->use_private_key(asio::buffer(keyPem), ssl::context::pem, ec);
    if (ec && ec.category() == asio::error::get_ssl_category() &&
        ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == X509_R_KEY_VALUES_MISMATCH) {
      error = where + "client key: does not match the client certificate";
      return nullptr;
    }
    if (ec) {
      error = where + "client key: not a usable PEM private key (" + ec.message() + ")";
      return nullptr;
    }
    if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
      error = where + "client key: does not match the client certificate";
      return nullptr;
    }
  }
  return context;
}

}  // namespace

class HttpsTransport::Impl {
 public:
  Impl(Options options, ServerUrl url, std::shared_ptr<ssl::context> sslContext,
       std::string initialToken)
      : options_(std::move(options)),
        url_(std::move(url)),
        limiter_(options_.qps, options_.burst),
        bindingLimiter_(options_.qps, options_.burst),
        eventLimiter_(options_.qps, options_.burst),
        sslContext_(std::move(sslContext)),
        token_(std::move(initialToken)) {
    const RestConfig& config = options_.config;
    if (config.exec) {
      ExecCredentialSource::Options eo;
      eo.timeout = options_.execTimeout;
      exec_ = std::make_unique<ExecCredentialSource>(*config.exec, eo);
    }
    verifyName_ = config.tlsServerName.empty() ? url_.host : config.tlsServerName;
    verifyIp_ = isIpAddress(verifyName_);
    sniName_ = isIpAddress(verifyName_) ? std::string() : verifyName_;
    if (!config.tokenFile.empty()) {
      refresher_ = std::jthread([this](std::stop_token stop) { refreshTokens(stop); });
    }
  }

  ~Impl() {
    if (refresher_.joinable()) {
      refresher_.request_stop();
      {
        std::lock_guard lock(tokenMutex_);
        tokenWake_.notify_all();
      }
      refresher_.join();
    }
    std::lock_guard lock(mutex_);
    for (auto& connection : idle_) connection->close();
    idle_.clear();
  }

  // Every request in flight ends now ("cancelled: the client is shutting down"), and every
  // later one fails at once.
  void cancelAll() {
    shutdown_.store(true, std::memory_order_release);
    std::vector<std::unique_ptr<Connection>> idle;
    {
      std::lock_guard lock(mutex_);
      idle.swap(idle_);
      open_ -= idle.size();
    }
    available_.notify_all();
    for (auto& connection : idle) connection->close();
  }

  // A 401 while a token file is configured: the token may have rotated since it was last
  // read. The file is read again at once and the request repeated once with the new token.
  // With an exec credential plugin, a 401 with the credential it gave runs it again (once
  // however many requests met it) and the request is repeated once with the new credential.
  Response send(const Request& request) {
    if (std::optional<Request> encoded = protobufWrite(request)) {
      Response response = sendRetryingAuth(*encoded);
      jsonAnswer(response);
      return response;
    }
    return sendRetryingAuth(request);
  }

  Response sendRetryingAuth(const Request& request) {
    const SteadyClock::time_point start = SteadyClock::now();
    Credential used;
    Response response = sendOnce(request, start, used);
    observe(request, response, SteadyClock::now() - start);
    if (response.status == 401 && (refreshTokenNow() || refreshExecCredential(used))) {
      const SteadyClock::time_point again = SteadyClock::now();
      response = sendOnce(request, start, used);
      observe(request, response, SteadyClock::now() - again);
    }
    return response;
  }

  void observe(const Request& request, const Response& response,
               SteadyClock::duration latency) const {
    if (options_.onRequest && !response.cancelled) {
      options_.onRequest(methodName(request.method), response.status,
                         std::chrono::duration_cast<std::chrono::nanoseconds>(latency));
    }
  }

  // With protobuf configured (Options::protobufAccept), a POST or PUT whose JSON body is an
  // object of a kind with a schema (a Binding, an events.k8s.io Event, a Lease), encoded as
  // protobuf and asking for a protobuf answer, as client-go sends it. Nullopt otherwise:
  // patches are JSON by their media type, and other kinds go as they are.
  std::optional<Request> protobufWrite(const Request& request) const {
    if (options_.protobufAccept.empty() || request.body.empty() ||
        request.contentType != "application/json" ||
        (request.method != Method::kPost && request.method != Method::kPut)) {
      return std::nullopt;
    }
    boost::system::error_code ec;
    const boost::json::value body = boost::json::parse(request.body, ec);
    if (ec || !body.is_object()) {
      return std::nullopt;
    }
    const boost::json::object& object = body.get_object();
    const boost::json::value* apiVersion = object.if_contains("apiVersion");
    const boost::json::value* kind = object.if_contains("kind");
    if (apiVersion == nullptr || kind == nullptr || !apiVersion->is_string() ||
        !kind->is_string()) {
      return std::nullopt;
    }
    Request out = request;
    std::string error;
    if (!proto::encodeObject(object, apiVersion->get_string(), kind->get_string(), out.body,
                             error)) {
      return std::nullopt;  // no schema, or a value the kind's type cannot hold: JSON says so
    }
    out.contentType = std::string(proto::kProtobufContentType);
    out.accept = options_.protobufAccept;
    return out;
  }

  // A protobuf answer handed back as JSON, which is what the callers of send() read.
  static void jsonAnswer(Response& response) {
    if (!proto::isProtobuf(response.contentType)) {
      return;
    }
    boost::json::value value;
    std::string error;
    if (proto::decodeObject(response.body, value, error)) {
      response.body = boost::json::serialize(value);
      response.contentType = "application/json";
    }
  }

  Response stream(const Request& request, const BodySink& sink, std::stop_token stop) {
    Credential used;
    Response response = streamOnce(request, sink, stop, used);
    observe(request, response, {});
    if (response.status == 401 && (refreshTokenNow() || refreshExecCredential(used))) {
      response = streamOnce(request, sink, stop, used);
      observe(request, response, {});
    }
    return response;
  }

  // After a 401 with `used`: true when the plugin gave another credential.
  bool refreshExecCredential(const Credential& used) {
    if (exec_ == nullptr) return false;
    std::string error;
    const Credential fresh = exec_->refreshAfterUnauthorized(used, error);
    if (fresh == nullptr) {
      spdlog::error("{}: refreshing credentials: {}", options_.config.server, error);
      return false;
    }
    return fresh != used;
  }

  RateLimiter& limiterFor(RateClass rateClass) {
    switch (rateClass) {
      case RateClass::kBinding:
        return bindingLimiter_;
      case RateClass::kEvents:
        return eventLimiter_;
      case RateClass::kGeneral:
        break;
    }
    return limiter_;
  }

  Response sendOnce(const Request& request, SteadyClock::time_point start, Credential& used) {
    const std::chrono::milliseconds timeout =
        request.timeout.count() > 0 ? std::min(request.timeout, options_.requestTimeout)
                                    : options_.requestTimeout;
    const Cancel cancel{request.stop, &shutdown_, start + timeout};
    const std::string what = std::string(methodName(request.method)) + " " + request.path;
    if (const Ended why = cancel.check(); why != Ended::kDone) {
      return why == Ended::kDeadline ? failure(what + ": " + endedText(why, timeout))
                                     : cancelled(what + ": " + endedText(why, timeout));
    }
    if (!limiterFor(request.rateClass).acquireBefore(request.stop, *cancel.deadline)) {
      if (request.stop.stop_requested()) {
        return cancelled(what + ": " + endedText(Ended::kStopped, timeout));
      }
      return failure(what + ": the client rate limiter has no token within " +
                     formatDuration(timeout));
    }
    HttpRequest message;
    if (std::string error; !buildRequest(request, message, used, error)) return failure(error);
    for (int attempt = 0;; ++attempt) {
      std::string error;
      std::unique_ptr<Connection> connection = acquire(attempt > 0, cancel, timeout, error);
      if (!connection) {
        const Ended why = cancel.check();
        return why == Ended::kStopped || why == Ended::kShutdown ? cancelled(error)
                                                                 : failure(error);
      }
      ++requestsSent_;
      ErrorCode ec;
      bool gotBytes = false;
      http::response_parser<http::string_body> parser;
      // Bounded, and checked against a declared Content-Length before anything is allocated;
      // a chunked body is counted as it arrives. An error answer's body is bounded tighter,
      // once its header says what it is.
      parser.body_limit(options_.maxResponseBytes);
      parser.header_limit(kHeaderLimit);
      connection->tcp().expires_at(*cancel.deadline);
      bool done = false;
      bool errorBodyTooLarge = false;
      connection->withStream([&](auto& stream) {
        http::async_write(stream, message, [&](ErrorCode writeError, std::size_t) {
          if (writeError) {
            ec = writeError;
            done = true;
            return;
          }
          http::async_read_header(stream, connection->buffer, parser,
                                  [&](ErrorCode headerError, std::size_t) {
                                    if (headerError || parser.is_done()) {
                                      ec = headerError;
                                      done = true;
                                      return;
                                    }
                                    const unsigned status = parser.get().result_int();
                                    if (status < 200 || status >= 300) {
                                      if (parser.content_length().value_or(0) > kMaxErrorBody) {
                                        errorBodyTooLarge = true;
                                        done = true;
                                        return;
                                      }
                                      parser.body_limit(kMaxErrorBody);
                                    }
                                    http::async_read(stream, connection->buffer, parser,
                                                     [&](ErrorCode readError, std::size_t) {
                                                       ec = readError;
                                                       done = true;
                                                     });
                                  });
        });
      });
      const Ended ended = runUntil(*connection, done, cancel);
      gotBytes = parser.got_some() || connection->buffer.size() > 0;
      if (ended != Ended::kDone) {
        release(std::move(connection), false);
        return ended == Ended::kDeadline ? failure(what + ": " + endedText(ended, timeout))
                                         : cancelled(what + ": " + endedText(ended, timeout));
      }
      const bool errorAnswer = parser.is_header_done() && (parser.get().result_int() < 200 ||
                                                           parser.get().result_int() >= 300);
      if (errorBodyTooLarge || (ec == http::error::body_limit && errorAnswer)) {
        const unsigned status = parser.get().result_int();
        release(std::move(connection), false);
        return failure(what + ": the answer (" + std::to_string(status) +
                       ") has an error body larger than the limit of " +
                       byteSizeText(kMaxErrorBody));
      }
      if (ec) {
        const bool stale = connection->reused && !gotBytes && closedBeforeAnswer(ec);
        release(std::move(connection), false);
        if (stale && attempt == 0) continue;
        if (ec == http::error::body_limit) {
          return failure(what + ": the answer is larger than the limit of " +
                         byteSizeText(options_.maxResponseBytes));
        }
        if (ec == beast::error::timeout) {
          // The socket's expiry and the deadline check are one deadline: one message.
          return failure(what + ": " + endedText(Ended::kDeadline, timeout));
        }
        if (ec == http::error::header_limit) {
          return failure(what + ": the answer's header is larger than the limit of " +
                         byteSizeText(limits::kMaxResponseHeaderBytes));
        }
        return failure(describe(ec, timeout));
      }
      auto& answer = parser.get();
      Response response;
      response.status = answer.result_int();
      response.retryAfterSeconds = retryAfter(answer);
      if (auto it = answer.find(http::field::location); it != answer.end()) {
        response.location = std::string(it->value());
      }
      if (auto it = answer.find(http::field::content_type); it != answer.end()) {
        response.contentType = std::string(it->value());
      }
      const bool keepAlive = answer.keep_alive() && connection->buffer.size() == 0;
      response.body = std::move(answer.body());
      release(std::move(connection), keepAlive);
      return response;
    }
  }

  Response streamOnce(const Request& request, const BodySink& sink, std::stop_token stop,
                      Credential& used) {
    const Cancel cancel{stop, &shutdown_, std::nullopt};
    if (cancel.check() == Ended::kShutdown) return cancelled(endedText(Ended::kShutdown, {}));
    if (!limiterFor(request.rateClass).acquire(stop)) {
      return failure("stopped before the request was sent");
    }
    HttpRequest message;
    std::string error;
    if (!buildRequest(request, message, used, error)) return failure(error);
    bool stopped = false;
    std::unique_ptr<Connection> connection =
        connect(cancel, options_.connectTimeout, error, stopped);
    if (!connection) return failure(stopped ? "stopped before the response" : error);
    ++requestsSent_;

    ErrorCode ec;
    bool done = false;
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    parser.header_limit(kHeaderLimit);
    connection->tcp().expires_after(options_.requestTimeout);
    connection->withStream([&](auto& stream) {
      http::async_write(stream, message, [&](ErrorCode writeError, std::size_t) {
        if (writeError) {
          ec = writeError;
          done = true;
          return;
        }
        http::async_read_header(stream, connection->buffer, parser,
                                [&](ErrorCode readError, std::size_t) {
                                  ec = readError;
                                  done = true;
                                });
      });
    });
    if (runUntil(*connection, done, cancel) != Ended::kDone) {
      return failure("stopped before the response");
    }
    if (ec) {
      connection->close();
      if (ec == http::error::header_limit) {
        return failure("GET " + request.path +
                       ": the answer's header is larger than the limit of " +
                       byteSizeText(limits::kMaxResponseHeaderBytes));
      }
      return failure(describe(ec, options_.requestTimeout));
    }
    Response response;
    response.status = parser.get().result_int();
    response.retryAfterSeconds = retryAfter(parser.get());
    if (auto it = parser.get().find(http::field::content_type); it != parser.get().end()) {
      response.contentType = std::string(it->value());
    }
    const bool success = response.ok();
    const auto idle = success ? options_.watchIdleTimeout : options_.requestTimeout;
    std::vector<char> buffer(kStreamBuffer);
    // Socket reads of up to kStreamBuffer bytes: Beast reads what the buffer's free capacity
    // allows (512 bytes otherwise), and a watch sends an event per chunk, so a small buffer
    // means a read, a timer and a poll per event.
    connection->buffer.reserve(kStreamBuffer);
    // The idle deadline moves at most once a second, not once per piece (a timer call each).
    auto deadlineSet = std::chrono::steady_clock::now() - std::chrono::seconds(2);
    while (!parser.is_done()) {
      parser.get().body().data = buffer.data();
      parser.get().body().size = buffer.size();
      if (const auto now = std::chrono::steady_clock::now();
          now - deadlineSet >= std::chrono::seconds(1)) {
        connection->tcp().expires_after(idle);
        deadlineSet = now;
      }
      done = false;
      connection->withStream([&](auto& stream) {
        http::async_read_some(stream, connection->buffer, parser,
                              [&](ErrorCode readError, std::size_t) {
                                ec = readError;
                                done = true;
                              });
      });
      if (runUntil(*connection, done, cancel) != Ended::kDone) {
        return Response{response.status, {}, {}, 0, {}};
      }
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t got = buffer.size() - parser.get().body().size;
      if (got > 0) {
        const std::string_view piece(buffer.data(), got);
        if (success) {
          if (!sink(piece)) {
            connection->close();
            return Response{response.status, {}, {}, 0, {}};
          }
        } else {
          response.body.append(piece.substr(0, kMaxErrorBody - response.body.size()));
          if (response.body.size() >= kMaxErrorBody) {
            // Enough to say what went wrong; the rest is not read.
            connection->close();
            return response;
          }
        }
      }
      if (ec) {
        connection->close();
        if (ec == beast::error::timeout && success) {
          response.error =
              options_.config.server + ": watch idle: nothing received for " + formatDuration(idle);
        } else {
          response.error = options_.config.server + ": reading the body: " + describe(ec, idle);
        }
        return response;
      }
    }
    connection->close();
    return response;
  }

  std::string server() const { return options_.config.server; }

  std::size_t openConnections() const {
    std::lock_guard lock(mutex_);
    return open_;
  }
  std::uint64_t requestsSent() const { return requestsSent_.load(); }
  const RateLimiter& rateLimiter(RateClass rateClass) const {
    return const_cast<Impl*>(this)->limiterFor(rateClass);
  }
  std::uint64_t execRuns() const { return exec_ != nullptr ? exec_->runs() : 0; }

 private:
  Response failure(const std::string& error) const {
    Response response;
    response.error = options_.config.server + ": " + error;
    return response;
  }
  // A failure because the request was cancelled (its stop token, or cancelAll).
  Response cancelled(const std::string& error) const {
    Response response = failure(error);
    response.cancelled = true;
    return response;
  }

  template <class Message>
  static int retryAfter(const Message& message) {
    auto it = message.find(http::field::retry_after);
    if (it == message.end()) return 0;
    const auto value = it->value();
    int seconds = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || end != value.data() + value.size() || seconds < 0) return 0;
    return seconds;
  }

  // False, with `error`, when the request cannot be written as asked. `used`: the exec
  // plugin's credential it carries (null without a plugin).
  bool buildRequest(const Request& request, HttpRequest& message, Credential& used,
                    std::string& error) {
    message.method_string(methodName(request.method));
    message.target(url_.prefix + (request.path.empty() ? "/" : request.path));
    message.version(11);
    message.set(http::field::host, url_.authority);
    message.set(http::field::user_agent, options_.userAgent);
    message.set(http::field::accept, request.accept.empty() ? "application/json" : request.accept);
    if (!request.body.empty()) {
      message.set(http::field::content_type, request.contentType);
      message.body() = request.body;
    }
    std::string token = currentToken();
    used = nullptr;
    if (exec_ != nullptr) {
      std::string execError;
      used = exec_->get(execError);
      if (used == nullptr) {
        error = "getting credentials: " + execError;
        return false;
      }
      token = used->token;
      if (!used->clientCertPem.empty() && !useExecCertificate(used, error)) return false;
    }
    if (!token.empty()) {
      // Checked where every token is read; checked again here, where a CR or LF would end the
      // header and write the rest as headers of its own.
      if (std::string why = bearerTokenProblem(token); !why.empty()) {
        error = "bearer token: " + why;
        return false;
      }
      message.set(http::field::authorization, "Bearer " + token);
    }
    message.keep_alive(true);
    message.prepare_payload();
    return true;
  }

  // The token file is read on a thread of its own, never on a request's: every tokenRefresh,
  // and at once when a request met a 401 (refreshTokenNow). A read that fails (the file gone,
  // not a regular file, too large, empty, a control character in it) keeps the last good
  // token, with one warning until a read succeeds again.
  void refreshTokens(const std::stop_token& stop) {
    std::unique_lock lock(tokenMutex_);
    for (;;) {
      tokenWake_.wait_for(lock, stop,
                          std::max(options_.tokenRefresh, std::chrono::milliseconds(10)),
                          [&] { return tokenReadWanted_; });
      if (stop.stop_requested()) return;
      tokenReadWanted_ = false;
      lock.unlock();
      std::string token;
      std::string error;
      const bool read = readTokenFile(options_.config.tokenFile, token, error);
      lock.lock();
      if (read) {
        tokenChanged_ = token != token_;
        token_ = std::move(token);
        tokenWarned_ = false;
      } else {
        tokenChanged_ = false;
        if (!tokenWarned_) {
          tokenWarned_ = true;
          spdlog::warn("{}: token file: {}; keeping the last token", options_.config.server, error);
        }
      }
      ++tokenReads_;
      tokenRead_.notify_all();
    }
  }

  // After a 401: asks the refresher to read the token file now and waits (at most
  // kTokenRereadWait) for it; true when it now holds another token.
  bool refreshTokenNow() {
    if (options_.config.tokenFile.empty()) return false;
    std::unique_lock lock(tokenMutex_);
    const std::uint64_t before = tokenReads_;
    tokenReadWanted_ = true;
    tokenWake_.notify_all();
    if (!tokenRead_.wait_for(lock, kTokenRereadWait, [&] { return tokenReads_ != before; })) {
      return false;
    }
    return tokenChanged_;
  }

  // Makes `credential`'s client certificate the one new connections present (idle ones, made
  // with the last, are closed), unless it already is.
  bool useExecCertificate(const Credential& credential, std::string& error) {
    {
      std::lock_guard lock(contextMutex_);
      if (contextCredential_ == credential) return true;
    }
    if (!url_.tls) return true;
    auto context = makeSslContext(options_.config, credential->clientCertPem,
                                  credential->clientKeyPem, "", error);
    if (context == nullptr) {
      error = "getting credentials: the exec plugin's " + error;
      return false;
    }
    {
      std::lock_guard lock(contextMutex_);
      sslContext_ = std::move(context);
      contextCredential_ = credential;
    }
    std::vector<std::unique_ptr<Connection>> idle;
    {
      std::lock_guard lock(mutex_);
      idle.swap(idle_);
      open_ -= idle.size();
    }
    available_.notify_all();
    for (auto& connection : idle) connection->close();
    return true;
  }

  std::shared_ptr<ssl::context> currentContext() {
    std::lock_guard lock(contextMutex_);
    return sslContext_;
  }

  std::string currentToken() {
    std::lock_guard lock(tokenMutex_);
    return token_;
  }

  // An idle connection (unless `fresh`), or a new one when fewer than maxConnections are open;
  // waits otherwise.
  std::unique_ptr<Connection> acquire(bool fresh, const Cancel& cancel,
                                      std::chrono::milliseconds timeout, std::string& error) {
    {
      std::unique_lock lock(mutex_);
      for (;;) {
        if (const Ended why = cancel.check(); why != Ended::kDone) {
          error = "waiting for a connection: " + endedText(why, timeout);
          return nullptr;
        }
        if (!fresh && !idle_.empty()) {
          auto connection = std::move(idle_.back());
          idle_.pop_back();
          connection->reused = true;
          return connection;
        }
        if (open_ < options_.maxConnections) break;
        if (fresh && !idle_.empty()) {
          // Make room: an idle connection is likely as stale as the one that just failed.
          idle_.front()->close();
          idle_.erase(idle_.begin());
          --open_;
          break;
        }
        // In slices, so that a stop or the shutdown is seen without a notification.
        available_.wait_for(lock, kStopPoll);
      }
      ++open_;
    }
    bool stopped = false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*cancel.deadline -
                                                                            SteadyClock::now());
    auto connection = connect(cancel, std::min(options_.connectTimeout, std::max(left, kStopPoll)),
                              error, stopped);
    if (stopped) {
      const Ended why = cancel.check();
      error = endedText(why == Ended::kDone ? Ended::kStopped : why, timeout);
    }
    if (!connection) {
      std::lock_guard lock(mutex_);
      --open_;
      available_.notify_one();
    }
    return connection;
  }

  void release(std::unique_ptr<Connection> connection, bool reusable) {
    if (!reusable) connection->close();
    {
      std::lock_guard lock(mutex_);
      if (reusable) {
        idle_.push_back(std::move(connection));
      } else {
        --open_;
      }
    }
    available_.notify_one();
    // A dropped connection is destroyed here, outside the lock.
  }

  // A new connection, within `connectTimeout` (resolving, connecting, the TLS handshake);
  // `stopped` when `cancel` ended it.
  std::unique_ptr<Connection> connect(const Cancel& cancel,
                                      std::chrono::milliseconds connectTimeout, std::string& error,
                                      bool& stopped) {
    auto connection = std::make_unique<Connection>();
    ErrorCode ec;
    // Resolved asynchronously, so that a stop, the shutdown or the deadline ends a slow lookup.
    Tcp::resolver resolver(connection->ioc);
    Tcp::resolver::results_type endpoints;
    bool resolved = false;
    resolver.async_resolve(url_.host, url_.port,
                           [&](ErrorCode resolveError, Tcp::resolver::results_type results) {
                             ec = resolveError;
                             endpoints = std::move(results);
                             resolved = true;
                           });
    Cancel resolving = cancel;
    const auto resolveDeadline = SteadyClock::now() + connectTimeout;
    if (!resolving.deadline || *resolving.deadline > resolveDeadline) {
      resolving.deadline = resolveDeadline;
    }
    if (const Ended why = runUntil(*connection, resolved, resolving, [&] { resolver.cancel(); });
        why != Ended::kDone) {
      if (why == Ended::kDeadline && cancel.check() == Ended::kDone) {
        error = "resolve " + url_.host + ": timed out after " + formatDuration(connectTimeout);
      } else {
        stopped = true;
      }
      return nullptr;
    }
    if (ec) {
      error = "resolve " + url_.host + ": " + ec.message();
      return nullptr;
    }
    if (url_.tls) {
      connection->context = currentContext();
      connection->tls.emplace(connection->ioc, *connection->context);
    } else {
      connection->plain.emplace(connection->ioc);
    }
    auto& tcp = connection->tcp();
    tcp.expires_after(connectTimeout);
    bool done = false;
    tcp.async_connect(endpoints, [&](ErrorCode connectError, const Tcp::endpoint&) {
      ec = connectError;
      done = true;
    });
    if (runUntil(*connection, done, cancel) != Ended::kDone) {
      stopped = true;
      return nullptr;
    }
    if (ec) {
      error = "connect: " + describe(ec, connectTimeout);
      return nullptr;
    }
    tcp.socket().set_option(Tcp::no_delay(true), ec);
    if (!url_.tls) return connection;

    SSL* ssl = connection->tls->native_handle();
    if (!sniName_.empty()) SSL_set_tlsext_host_name(ssl, sniName_.c_str());
    if (!options_.config.insecureSkipTlsVerify) {
      if (verifyIp_) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), verifyName_.c_str());
      } else {
        SSL_set1_host(ssl, verifyName_.c_str());
      }
    }
    done = false;
    connection->tls->async_handshake(ssl::stream_base::client, [&](ErrorCode handshakeError) {
      ec = handshakeError;
      done = true;
    });
    if (runUntil(*connection, done, cancel) != Ended::kDone) {
      stopped = true;
      return nullptr;
    }
    if (ec) {
      const long verify = SSL_get_verify_result(ssl);
      if (verify != X509_V_OK && !options_.config.insecureSkipTlsVerify) {
        error = std::string("TLS handshake: certificate verify failed (") +
                X509_verify_cert_error_string(verify) + ")";
      } else {
        error = "TLS handshake: " + describe(ec, connectTimeout);
      }
      connection->close();
      return nullptr;
    }
    return connection;
  }

  const Options options_;
  const ServerUrl url_;
  std::string verifyName_;
  bool verifyIp_ = false;
  std::string sniName_;
  RateLimiter limiter_;         // RateClass::kGeneral
  RateLimiter bindingLimiter_;  // RateClass::kBinding
  RateLimiter eventLimiter_;    // RateClass::kEvents

  std::unique_ptr<ExecCredentialSource> exec_;  // the user's exec plugin, when configured
  std::mutex contextMutex_;
  std::shared_ptr<ssl::context> sslContext_;  // what new connections are made with
  Credential contextCredential_;              // the exec credential it holds, if any

  std::mutex tokenMutex_;
  std::condition_variable_any tokenWake_;
  std::condition_variable tokenRead_;
  std::string token_;
  bool tokenWarned_ = false;
  bool tokenReadWanted_ = false;
  bool tokenChanged_ = false;
  std::uint64_t tokenReads_ = 0;
  std::jthread refresher_;  // last: started once the rest is built, joined first

  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::size_t open_ = 0;
  std::atomic<std::uint64_t> requestsSent_{0};
  std::atomic<bool> shutdown_{false};
};

std::unique_ptr<HttpsTransport> HttpsTransport::create(Options options, std::string& error) {
  const RestConfig& config = options.config;
  ServerUrl url;
  if (!parseServer(config.server, url, error)) return nullptr;
  const std::string where = config.server + ": ";

  std::shared_ptr<ssl::context> context;
  if (url.tls) {
    context = makeSslContext(config, config.clientCertPem, config.clientKeyPem, where, error);
    if (context == nullptr) return nullptr;
  }

  std::string token = config.token;
  if (std::string why = bearerTokenProblem(token); !why.empty()) {
    error = where + "token: " + why;
    return nullptr;
  }
  if (!config.tokenFile.empty()) {
    std::string readError;
    if (!readTokenFile(config.tokenFile, token, readError)) {
      error = where + "token file: " + readError;
      return nullptr;
    }
  }
  auto impl = std::make_unique<Impl>(std::move(options), std::move(url), context, std::move(token));
  return std::unique_ptr<HttpsTransport>(new HttpsTransport(std::move(impl)));
}

HttpsTransport::HttpsTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpsTransport::~HttpsTransport() = default;

Response HttpsTransport::send(const Request& request) { return impl_->send(request); }
Response HttpsTransport::stream(const Request& request, const BodySink& sink,
                                std::stop_token stop) {
  return impl_->stream(request, sink, std::move(stop));
}
std::string HttpsTransport::server() const { return impl_->server(); }
Response HttpsTransport::get(const std::string& path) {
  Request request;
  request.path = path;
  return impl_->send(request);
}
void HttpsTransport::cancelAll() { impl_->cancelAll(); }
std::size_t HttpsTransport::openConnections() const { return impl_->openConnections(); }
std::uint64_t HttpsTransport::requestsSent() const { return impl_->requestsSent(); }
const RateLimiter& HttpsTransport::rateLimiter(RateClass rateClass) const {
  return impl_->rateLimiter(rateClass);
}
std::uint64_t HttpsTransport::execCredentialRuns() const { return impl_->execRuns(); }

}  // namespace sh::kube
