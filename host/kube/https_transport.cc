#include "host/kube/https_transport.h"

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
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

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
constexpr std::size_t kMaxErrorBody = 1024 * 1024;
constexpr std::uint32_t kHeaderLimit = 64 * 1024;

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

std::string trim(std::string text) {
  const char* space = " \t\r\n";
  auto begin = text.find_first_not_of(space);
  if (begin == std::string::npos) return {};
  auto end = text.find_last_not_of(space);
  return text.substr(begin, end - begin + 1);
}

bool readTokenFile(const std::string& path, std::string& token, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  token = trim(contents.str());
  if (token.empty()) {
    error = path + " is empty";
    return false;
  }
  return true;
}

// One connection: its own io_context, run by whichever thread holds the connection.
struct Connection {
  asio::io_context ioc{1};
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

// Runs the connection's io_context until `done`. With a stop token that can be stopped, polls
// it every kStopPoll; when stopped, closes the socket, lets the handlers finish and returns
// false.
bool runUntil(Connection& connection, const bool& done, const std::stop_token& stop) {
  connection.ioc.restart();
  if (!stop.stop_possible()) {
    connection.ioc.run();
    return true;
  }
  while (!done) {
    connection.ioc.run_for(kStopPoll);
    if (done) break;
    if (stop.stop_requested()) {
      connection.close();
      connection.ioc.restart();
      connection.ioc.run();
      return false;
    }
    connection.ioc.restart();
  }
  return true;
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

}  // namespace

class HttpsTransport::Impl {
 public:
  Impl(Options options, ServerUrl url, std::shared_ptr<ssl::context> sslContext,
       std::string initialToken)
      : options_(std::move(options)),
        url_(std::move(url)),
        sslContext_(std::move(sslContext)),
        limiter_(options_.qps, options_.burst),
        token_(std::move(initialToken)),
        tokenReadAt_(std::chrono::steady_clock::now()) {
    const RestConfig& config = options_.config;
    verifyName_ = config.tlsServerName.empty() ? url_.host : config.tlsServerName;
    verifyIp_ = isIpAddress(verifyName_);
    sniName_ = isIpAddress(verifyName_) ? std::string() : verifyName_;
  }

  ~Impl() {
    std::lock_guard lock(mutex_);
    for (auto& connection : idle_) connection->close();
    idle_.clear();
  }

  // A 401 while a token file is configured: the token may have rotated since it was last
  // read. The file is read again at once and the request repeated once with the new token.
  Response send(const Request& request) {
    Response response = sendOnce(request);
    if (response.status == 401 && refreshTokenNow()) {
      response = sendOnce(request);
    }
    return response;
  }

  Response stream(const Request& request, const BodySink& sink, std::stop_token stop) {
    Response response = streamOnce(request, sink, stop);
    if (response.status == 401 && refreshTokenNow()) {
      response = streamOnce(request, sink, stop);
    }
    return response;
  }

  Response sendOnce(const Request& request) {
    limiter_.acquire(std::stop_token());
    const HttpRequest message = buildRequest(request);
    for (int attempt = 0;; ++attempt) {
      std::string error;
      std::unique_ptr<Connection> connection = acquire(attempt > 0, error);
      if (!connection) return failure(error);
      ++requestsSent_;
      ErrorCode ec;
      bool gotBytes = false;
      http::response_parser<http::string_body> parser;
      parser.body_limit(std::numeric_limits<std::uint64_t>::max());
      parser.header_limit(kHeaderLimit);
      connection->tcp().expires_after(options_.requestTimeout);
      bool done = false;
      connection->withStream([&](auto& stream) {
        http::async_write(stream, message, [&](ErrorCode writeError, std::size_t) {
          if (writeError) {
            ec = writeError;
            done = true;
            return;
          }
          http::async_read(stream, connection->buffer, parser,
                           [&](ErrorCode readError, std::size_t) {
                             ec = readError;
                             done = true;
                           });
        });
      });
      runUntil(*connection, done, std::stop_token());
      gotBytes = parser.got_some() || connection->buffer.size() > 0;
      if (ec) {
        const bool stale = connection->reused && !gotBytes && closedBeforeAnswer(ec);
        release(std::move(connection), false);
        if (stale && attempt == 0) continue;
        return failure(describe(ec, options_.requestTimeout));
      }
      auto& answer = parser.get();
      Response response;
      response.status = answer.result_int();
      response.retryAfterSeconds = retryAfter(answer);
      const bool keepAlive = answer.keep_alive() && connection->buffer.size() == 0;
      response.body = std::move(answer.body());
      release(std::move(connection), keepAlive);
      return response;
    }
  }

  Response streamOnce(const Request& request, const BodySink& sink, std::stop_token stop) {
    if (!limiter_.acquire(stop)) return failure("stopped before the request was sent");
    const HttpRequest message = buildRequest(request);
    std::string error;
    bool stopped = false;
    std::unique_ptr<Connection> connection = connect(stop, error, stopped);
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
    if (!runUntil(*connection, done, stop)) return failure("stopped before the response");
    if (ec) {
      connection->close();
      return failure(describe(ec, options_.requestTimeout));
    }
    Response response;
    response.status = parser.get().result_int();
    response.retryAfterSeconds = retryAfter(parser.get());
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
      if (!runUntil(*connection, done, stop)) return Response{response.status, {}, {}, 0};
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t got = buffer.size() - parser.get().body().size;
      if (got > 0) {
        const std::string_view piece(buffer.data(), got);
        if (success) {
          if (!sink(piece)) {
            connection->close();
            return Response{response.status, {}, {}, 0};
          }
        } else if (response.body.size() < kMaxErrorBody) {
          response.body.append(piece);
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
  const RateLimiter& rateLimiter() const { return limiter_; }

 private:
  Response failure(const std::string& error) const {
    Response response;
    response.error = options_.config.server + ": " + error;
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

  HttpRequest buildRequest(const Request& request) {
    HttpRequest message;
    message.method_string(methodName(request.method));
    message.target(url_.prefix + (request.path.empty() ? "/" : request.path));
    message.version(11);
    message.set(http::field::host, url_.authority);
    message.set(http::field::user_agent, options_.userAgent);
    message.set(http::field::accept, "application/json");
    if (!request.body.empty()) {
      message.set(http::field::content_type, request.contentType);
      message.body() = request.body;
    }
    const std::string token = currentToken();
    if (!token.empty()) message.set(http::field::authorization, "Bearer " + token);
    message.keep_alive(true);
    message.prepare_payload();
    return message;
  }

  // Reads the token file now; true when it holds a token other than the one in use.
  bool refreshTokenNow() {
    if (options_.config.tokenFile.empty()) return false;
    std::lock_guard lock(tokenMutex_);
    tokenReadAt_ = std::chrono::steady_clock::now();
    std::string token;
    std::string error;
    if (!readTokenFile(options_.config.tokenFile, token, error) || token == token_) return false;
    token_ = std::move(token);
    tokenWarned_ = false;
    return true;
  }

  std::string currentToken() {
    if (options_.config.tokenFile.empty()) return token_;  // never changes then
    std::lock_guard lock(tokenMutex_);
    const auto now = std::chrono::steady_clock::now();
    if (now - tokenReadAt_ >= options_.tokenRefresh) {
      tokenReadAt_ = now;
      std::string token;
      std::string error;
      if (readTokenFile(options_.config.tokenFile, token, error)) {
        token_ = std::move(token);
        tokenWarned_ = false;
      } else if (!tokenWarned_) {
        tokenWarned_ = true;
        spdlog::warn("{}: token file: {}; keeping the last token", options_.config.server, error);
      }
    }
    return token_;
  }

  // An idle connection (unless `fresh`), or a new one when fewer than maxConnections are open;
  // waits otherwise.
  std::unique_ptr<Connection> acquire(bool fresh, std::string& error) {
    {
      std::unique_lock lock(mutex_);
      for (;;) {
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
        available_.wait(lock);
      }
      ++open_;
    }
    bool stopped = false;
    auto connection = connect(std::stop_token(), error, stopped);
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

  std::unique_ptr<Connection> connect(const std::stop_token& stop, std::string& error,
                                      bool& stopped) {
    auto connection = std::make_unique<Connection>();
    ErrorCode ec;
    Tcp::resolver resolver(connection->ioc);
    auto endpoints = resolver.resolve(url_.host, url_.port, ec);
    if (ec) {
      error = "resolve " + url_.host + ": " + ec.message();
      return nullptr;
    }
    if (url_.tls) {
      connection->tls.emplace(connection->ioc, *sslContext_);
    } else {
      connection->plain.emplace(connection->ioc);
    }
    auto& tcp = connection->tcp();
    tcp.expires_after(options_.connectTimeout);
    bool done = false;
    tcp.async_connect(endpoints, [&](ErrorCode connectError, const Tcp::endpoint&) {
      ec = connectError;
      done = true;
    });
    if (!runUntil(*connection, done, stop)) {
      stopped = true;
      return nullptr;
    }
    if (ec) {
      error = "connect: " + describe(ec, options_.connectTimeout);
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
    if (!runUntil(*connection, done, stop)) {
      stopped = true;
      return nullptr;
    }
    if (ec) {
      const long verify = SSL_get_verify_result(ssl);
      if (verify != X509_V_OK && !options_.config.insecureSkipTlsVerify) {
        error = std::string("TLS handshake: certificate verify failed (") +
                X509_verify_cert_error_string(verify) + ")";
      } else {
        error = "TLS handshake: " + describe(ec, options_.connectTimeout);
      }
      connection->close();
      return nullptr;
    }
    return connection;
  }

  const Options options_;
  const ServerUrl url_;
  const std::shared_ptr<ssl::context> sslContext_;
  std::string verifyName_;
  bool verifyIp_ = false;
  std::string sniName_;
  RateLimiter limiter_;

  std::mutex tokenMutex_;
  std::string token_;
  std::chrono::steady_clock::time_point tokenReadAt_;
  bool tokenWarned_ = false;

  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::size_t open_ = 0;
  std::atomic<std::uint64_t> requestsSent_{0};
};

std::unique_ptr<HttpsTransport> HttpsTransport::create(Options options, std::string& error) {
  const RestConfig& config = options.config;
  ServerUrl url;
  if (!parseServer(config.server, url, error)) return nullptr;
  const std::string where = config.server + ": ";

  std::shared_ptr<ssl::context> context;
  if (url.tls) {
    context = std::make_shared<ssl::context>(ssl::context::tls_client);
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
    if (config.clientCertPem.empty() != config.clientKeyPem.empty()) {
      error = where + "a client certificate and a client key must be given together";
      return nullptr;
    }
    if (!config.clientCertPem.empty()) {
      context->use_certificate_chain(asio::buffer(config.clientCertPem), ec);
      if (ec) {
        error = where + "client certificate: not a usable PEM certificate (" + ec.message() + ")";
        return nullptr;
      }
      context->use_private_key(asio::buffer(config.clientKeyPem), ssl::context::pem, ec);
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
  }

  std::string token = config.token;
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
std::size_t HttpsTransport::openConnections() const { return impl_->openConnections(); }
std::uint64_t HttpsTransport::requestsSent() const { return impl_->requestsSent(); }
const RateLimiter& HttpsTransport::rateLimiter() const { return impl_->rateLimiter(); }

}  // namespace sh::kube
