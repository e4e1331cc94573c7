#include "tests/kube/support/https_responder.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <list>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace sh::kubetest {
namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using Tcp = asio::ip::tcp;
using ErrorCode = boost::system::error_code;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string peerCommonName(SSL* ssl) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return {};
  char name[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, name, sizeof name);
  X509_free(cert);
  return name;
}

struct ServedConnection {
  std::uint64_t id = 0;
  int fd = -1;
  std::atomic<bool> idle{false};
  std::atomic<bool> finished{false};
  std::thread thread;
};

}  // namespace

class HttpsResponder::Impl {
 public:
  Impl(Options options, Handler handler)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        context_(ssl::context::tls_server),
        acceptor_(ioc_) {
    if (options_.tls) {
      const TlsMaterial& m = options_.material;
      context_.use_certificate_chain(asio::buffer(m.serverCert));
      context_.use_private_key(asio::buffer(m.serverKey), ssl::context::pem);
      if (options_.requireClientCert) {
        context_.add_certificate_authority(asio::buffer(m.caCert));
        context_.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
      }
    }
    Tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(Tcp::acceptor::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    listenFd_ = acceptor_.native_handle();
    acceptThread_ = std::thread([this] { acceptLoop(); });
  }

  ~Impl() { stop(); }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    changed_.notify_all();
    ::shutdown(listenFd_, SHUT_RDWR);
    if (acceptThread_.joinable()) acceptThread_.join();
    std::list<std::shared_ptr<ServedConnection>> connections;
    {
      std::lock_guard lock(mutex_);
      connections = connections_;
      for (auto& connection : connections) {
        if (!connection->finished) ::shutdown(connection->fd, SHUT_RDWR);
      }
    }
    for (auto& connection : connections) {
      if (connection->thread.joinable()) connection->thread.join();
    }
    ErrorCode ec;
    acceptor_.close(ec);
  }

  int port() const { return port_; }
  bool tls() const { return options_.tls; }

  std::size_t closeIdle() {
    std::lock_guard lock(mutex_);
    std::size_t closed = 0;
    for (auto& connection : connections_) {
      if (connection->idle && !connection->finished) {
        ::shutdown(connection->fd, SHUT_RDWR);
        ++closed;
      }
    }
    return closed;
  }

  bool waitForIdle(std::size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] {
      std::size_t idle = 0;
      for (auto& connection : connections_) {
        if (connection->idle && !connection->finished) ++idle;
      }
      return idle >= count;
    });
  }

  bool waitForOpenAtMost(std::size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] {
      std::size_t open = 0;
      for (auto& connection : connections_) open += connection->finished ? 0 : 1;
      return open <= count;
    });
  }

  std::uint64_t accepted() const {
    std::lock_guard lock(mutex_);
    return nextId_;
  }
  std::size_t open() const {
    std::lock_guard lock(mutex_);
    std::size_t open = 0;
    for (auto& connection : connections_) open += connection->finished ? 0 : 1;
    return open;
  }
  std::vector<RecordedRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

  void setRequiredToken(const std::string& token) {
    std::lock_guard lock(mutex_);
    options_.requiredToken = token;
  }

 private:
  void acceptLoop() {
    for (;;) {
      ErrorCode ec;
      Tcp::socket socket(ioc_);
      acceptor_.accept(socket, ec);
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      if (ec) continue;
      auto connection = std::make_shared<ServedConnection>();
      connection->id = ++nextId_;
      connection->fd = socket.native_handle();
      connections_.push_back(connection);
      connection->thread = std::thread([this, connection, s = std::move(socket)]() mutable {
        serve(*connection, std::move(s));
      });
    }
  }

  void setIdle(ServedConnection& connection, bool idle) {
    {
      std::lock_guard lock(mutex_);
      connection.idle = idle;
    }
    changed_.notify_all();
  }

  // Waits `delay` unless the responder stops first; false when stopping.
  bool pause(std::chrono::milliseconds delay) {
    if (delay.count() <= 0) return true;
    std::unique_lock lock(mutex_);
    return !changed_.wait_for(lock, delay, [&] { return stopping_; });
  }

  // Marks the connection finished before its socket is closed, so that no shutdown() from
  // closeIdle() or stop() can reach a descriptor number the system has handed out again.
  void markFinished(ServedConnection& connection) {
    {
      std::lock_guard lock(mutex_);
      connection.finished = true;
    }
    changed_.notify_all();
  }

  void serve(ServedConnection& connection, Tcp::socket socket) {
    ErrorCode ec;
    socket.set_option(Tcp::no_delay(true), ec);
    if (!options_.tls) {
      serveStream(connection, socket, std::string());
      markFinished(connection);
      return;
    }
    ssl::stream<Tcp::socket> stream(std::move(socket), context_);
    stream.handshake(ssl::stream_base::server, ec);
    if (!ec) serveStream(connection, stream, peerCommonName(stream.native_handle()));
    markFinished(connection);
  }

  template <class Stream>
  void serveStream(ServedConnection& connection, Stream& stream, const std::string& commonName) {
    beast::flat_buffer buffer;
    for (;;) {
      setIdle(connection, true);
      http::request_parser<http::string_body> parser;
      parser.body_limit(64 * 1024 * 1024);
      ErrorCode ec;
      http::read(stream, buffer, parser, ec);
      setIdle(connection, false);
      if (ec) return;
      const auto& message = parser.get();
      RecordedRequest request;
      request.method = std::string(message.method_string());
      request.target = std::string(message.target());
      request.body = message.body();
      for (const auto& field : message) {
        request.headers[lower(field.name_string())] = std::string(field.value());
      }
      request.clientCommonName = commonName;
      request.connectionId = connection.id;
      std::string requiredToken;
      {
        std::lock_guard lock(mutex_);
        requests_.push_back(request);
        requiredToken = options_.requiredToken;
      }
      Reply reply;
      if (!requiredToken.empty() && request.header("authorization") != "Bearer " + requiredToken) {
        reply.status = 401;
        reply.body = R"({"kind":"Status","code":401,"reason":"Unauthorized"})";
      } else {
        reply = handler_(request);
      }
      if (!pause(reply.delay)) return;
      const bool keepAlive = message.keep_alive() && !reply.close;
      if (reply.pieces.empty()) {
        http::response<http::string_body> response{static_cast<http::status>(reply.status), 11};
        response.set(http::field::content_type, reply.contentType);
        for (const auto& [name, value] : reply.headers) response.set(name, value);
        response.body() = reply.body;
        response.keep_alive(keepAlive);
        response.prepare_payload();
        http::write(stream, response, ec);
        if (ec || !keepAlive) return;
        continue;
      }
      std::string head =
          "HTTP/1.1 " + std::to_string(reply.status) + " " +
          std::string(http::obsolete_reason(static_cast<http::status>(reply.status))) +
          "\r\nContent-Type: " + reply.contentType + "\r\nTransfer-Encoding: chunked\r\n";
      for (const auto& [name, value] : reply.headers) head += name + ": " + value + "\r\n";
      if (!keepAlive || reply.holdOpen) head += "Connection: close\r\n";
      head += "\r\n";
      asio::write(stream, asio::buffer(head), ec);
      if (ec) return;
      for (std::size_t i = 0; i < reply.pieces.size(); ++i) {
        if (i > 0 && !pause(reply.pieceDelay)) return;
        const std::string& piece = reply.pieces[i];
        if (piece.empty()) continue;  // an empty chunk would end the body
        char size[32];
        std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
        std::string chunk = size + piece + "\r\n";
        asio::write(stream, asio::buffer(chunk), ec);
        if (ec) return;
      }
      if (reply.holdOpen) {
        // Until the client goes away (or the responder stops).
        char scratch[256];
        while (!ec) stream.read_some(asio::buffer(scratch), ec);
        return;
      }
      asio::write(stream, asio::buffer(std::string_view("0\r\n\r\n")), ec);
      if (ec || !keepAlive) return;
    }
  }

  Options options_;  // requiredToken under mutex_
  const Handler handler_;
  asio::io_context ioc_;
  ssl::context context_;
  Tcp::acceptor acceptor_;
  int port_ = 0;
  int listenFd_ = -1;
  std::thread acceptThread_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  std::uint64_t nextId_ = 0;
  std::list<std::shared_ptr<ServedConnection>> connections_;
  std::vector<RecordedRequest> requests_;
};

HttpsResponder::HttpsResponder(Options options, Handler handler)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler))) {}
HttpsResponder::~HttpsResponder() { impl_->stop(); }

int HttpsResponder::port() const { return impl_->port(); }
std::string HttpsResponder::url() const {
  return std::string(impl_->tls() ? "https" : "http") +
         "://127.0.0.1:" + std::to_string(impl_->port());
}
std::size_t HttpsResponder::closeIdleConnections() { return impl_->closeIdle(); }
bool HttpsResponder::waitForIdle(std::size_t count, std::chrono::milliseconds timeout) {
  return impl_->waitForIdle(count, timeout);
}
bool HttpsResponder::waitForOpenAtMost(std::size_t count, std::chrono::milliseconds timeout) {
  return impl_->waitForOpenAtMost(count, timeout);
}
std::uint64_t HttpsResponder::connectionsAccepted() const { return impl_->accepted(); }
std::size_t HttpsResponder::connectionsOpen() const { return impl_->open(); }
std::vector<RecordedRequest> HttpsResponder::requests() const { return impl_->requests(); }
void HttpsResponder::setRequiredToken(const std::string& token) { impl_->setRequiredToken(token); }
void HttpsResponder::stop() { impl_->stop(); }

}  // namespace sh::kubetest
