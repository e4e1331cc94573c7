#include "tests/kube/support/https_client.h"

#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>

namespace sh::kubetest {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Tcp = asio::ip::tcp;

std::string clientPemOf(X509* certificate) {
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_X509(out.get(), certificate);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

HttpsAnswer httpsGet(const HttpsCall& call) {
  HttpsAnswer answer;
  try {
    asio::io_context ioc;
    asio::ssl::context context(asio::ssl::context::tls_client);
    if (!call.caPem.empty()) {
      context.add_certificate_authority(asio::buffer(call.caPem));
      context.set_verify_mode(asio::ssl::verify_peer);
    } else {
      context.set_verify_mode(asio::ssl::verify_none);
    }
    if (!call.certificatePem.empty()) {
      context.use_certificate_chain(asio::buffer(call.certificatePem));
      context.use_private_key(asio::buffer(call.keyPem), asio::ssl::context::pem);
    }
    asio::ssl::stream<Tcp::socket> stream(ioc, context);
    if (!call.caPem.empty()) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(stream.native_handle()), "127.0.0.1");
    }
    Tcp::socket& socket = stream.next_layer();
    socket.connect(
        Tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(call.port)));
    timeval timeout{10, 0};
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    stream.handshake(asio::ssl::stream_base::client);
    if (STACK_OF(X509)* chain = SSL_get_peer_cert_chain(stream.native_handle())) {
      for (int i = 0; i < sk_X509_num(chain); ++i) {
        answer.servedChain.push_back(clientPemOf(sk_X509_value(chain, i)));
      }
    }
    http::request<http::empty_body> request(http::verb::get, call.path, 11);
    request.set(http::field::host, "127.0.0.1");
    for (const auto& [name, value] : call.headers) request.insert(name, value);
    http::write(stream, request);
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response);
    answer.status = static_cast<int>(response.result_int());
    answer.body = response.body();
  } catch (const std::exception& e) {
    answer.error = e.what();
  }
  return answer;
}

}  // namespace sh::kubetest
