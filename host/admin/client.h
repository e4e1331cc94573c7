// A small synchronous HTTP/1.1 client for the admin endpoints, over TCP or a Unix socket.
#pragma once

#include <chrono>
#include <string>

#include "host/admin/endpoint.h"

namespace sh::admin {

struct ClientResponse {
  std::string error;  // empty on success; else names the endpoint and the cause
  int status = 0;     // the HTTP status code
  std::string contentType;
  std::string body;

  bool ok() const { return error.empty(); }
};

// Sends one request (`method` "GET", "POST", ...; no body) and reads the whole response, all
// within `timeout`. Errors read e.g. "cannot connect to 127.0.0.1:10259: Connection refused"
// or "no answer from /run/schedhost.sock within 5 s".
ClientResponse request(const Endpoint& endpoint, const std::string& method, const std::string& path,
                       std::chrono::milliseconds timeout);

}  // namespace sh::admin
