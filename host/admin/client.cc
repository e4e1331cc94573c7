#include "host/admin/client.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <exception>
#include <optional>

namespace sh::admin {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Tcp = asio::ip::tcp;
using Local = asio::local::stream_protocol;
using ErrorCode = boost::system::error_code;
using Clock = std::chrono::steady_clock;

std::string seconds(std::chrono::milliseconds timeout) {
  auto ms = timeout.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

// Connects (already done by `connect`), writes the request and reads the response on `stream`
// before `deadline`; `ioc` runs the operations.
template <class Stream>
ClientResponse exchange(asio::io_context& ioc, Stream& stream, const std::string& where,
                        const std::string& method, const std::string& path,
                        std::chrono::milliseconds timeout) {
  ClientResponse out;
  http::request<http::empty_body> request;
  request.method_string(method);
  request.target(path);
  request.version(11);
  request.set(http::field::host, "schedhost");
  request.set(http::field::user_agent, "schedhost");
  request.keep_alive(false);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  if (method == "HEAD") parser.skip(true);
  ErrorCode result;
  http::async_write(stream, request, [&](ErrorCode ec, std::size_t) {
    if (ec) {
      result = ec;
      return;
    }
    http::async_read(stream, buffer, parser,
                     [&](ErrorCode readEc, std::size_t) { result = readEc; });
  });
  ioc.run();
  if (result == beast::error::timeout) {
    out.error = "no answer from " + where + " within " + seconds(timeout);
    return out;
  }
  if (result) {
    out.error = "cannot read the answer from " + where + ": " + result.message();
    return out;
  }
  auto response = parser.release();
  out.status = static_cast<int>(response.result_int());
  out.contentType = std::string(response[http::field::content_type]);
  out.body = std::move(response.body());
  return out;
}

}  // namespace

ClientResponse request(const Endpoint& endpoint, const std::string& method, const std::string& path,
                       std::chrono::milliseconds timeout) {
  ClientResponse out;
  std::string where = endpoint.describe();
  try {
    asio::io_context ioc;
    if (!endpoint.socket.empty()) {
      beast::basic_stream<Local> stream(ioc);
      stream.expires_after(timeout);
      ErrorCode result;
      Local::endpoint target;
      try {
        target = Local::endpoint(endpoint.socket);
      } catch (const std::exception& e) {
        out.error = "cannot connect to " + where + ": " + e.what();
        return out;
      }
      stream.async_connect(target, [&](ErrorCode ec) { result = ec; });
      ioc.run();
      ioc.restart();
      if (result == beast::error::timeout) {
        out.error = "cannot connect to " + where + ": no answer within " + seconds(timeout);
        return out;
      }
      if (result) {
        out.error = "cannot connect to " + where + ": " + result.message();
        return out;
      }
      return exchange(ioc, stream, where, method, path, timeout);
    }
    TcpAddress address;
    Status parsed = parseTcpAddress(endpoint.address, address);
    if (!parsed.ok()) {
      out.error = parsed.message();
      return out;
    }
    auto deadline = Clock::now() + timeout;
    ErrorCode ec;
    Tcp::resolver resolver(ioc);
    auto results = resolver.resolve(address.host, std::to_string(address.port),
                                    Tcp::resolver::numeric_service, ec);
    if (ec) {
      out.error = "cannot connect to " + where + ": cannot resolve \"" + address.host +
                  "\": " + ec.message();
      return out;
    }
    beast::tcp_stream stream(ioc);
    stream.expires_at(deadline);
    ErrorCode result;
    stream.async_connect(results,
                         [&](ErrorCode connectEc, const Tcp::endpoint&) { result = connectEc; });
    ioc.run();
    ioc.restart();
    if (result == beast::error::timeout) {
      out.error = "cannot connect to " + where + ": no answer within " + seconds(timeout);
      return out;
    }
    if (result) {
      out.error = "cannot connect to " + where + ": " + result.message();
      return out;
    }
    return exchange(ioc, stream, where, method, path, timeout);
  } catch (const std::exception& e) {
    out.error = "cannot reach " + where + ": " + e.what();
    return out;
  }
}

}  // namespace sh::admin
