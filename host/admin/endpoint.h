// Where the admin endpoints listen: a TCP "host:port" and/or a Unix socket path.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "host/common/status.h"

namespace sh::admin {

inline constexpr std::string_view kDefaultAdminHost = "127.0.0.1";

struct TcpAddress {
  std::string host;  // an IP address or a name to resolve
  uint16_t port = 0;
};

// Parses "host:port", "[v6 address]:port", ":port" or "port"; a missing host is 127.0.0.1.
// The error names the text and what is wrong with it.
Status parseTcpAddress(std::string_view text, TcpAddress& out);

// One place to reach the endpoints: exactly one of `address` and `socket` is set.
struct Endpoint {
  std::string address;  // "host:port" as parseTcpAddress reads it
  std::string socket;   // a Unix socket path

  // "127.0.0.1:10259" or the socket path, as error messages name it.
  std::string describe() const;
};

}  // namespace sh::admin
