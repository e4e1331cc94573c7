#include "host/admin/endpoint.h"

#include <charconv>

namespace sh::admin {

Status parseTcpAddress(std::string_view text, TcpAddress& out) {
  auto bad = [&](std::string_view why) {
    return Status::error("bad admin address \"" + std::string(text) + "\": " + std::string(why));
  };
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos) return bad("missing ']'");
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return bad("expected ':port' after ']'");
    port = rest.substr(1);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      port = text;
    } else {
      host = text.substr(0, colon);
      port = text.substr(colon + 1);
      if (host.find(':') != std::string_view::npos) {
        return bad("an IPv6 address must be written in brackets, e.g. [::1]:10259");
      }
    }
  }
  if (port.empty()) return bad("missing port");
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return bad("port must be a number from 0 to 65535");
  }
  out.host = host.empty() ? std::string(kDefaultAdminHost) : std::string(host);
  out.port = static_cast<uint16_t>(value);
  return Status::success();
}

std::string Endpoint::describe() const {
  if (!socket.empty()) return socket;
  TcpAddress parsed;
  if (!parseTcpAddress(address, parsed).ok()) return address;
  if (parsed.host.find(':') != std::string::npos) {
    return "[" + parsed.host + "]:" + std::to_string(parsed.port);
  }
  return parsed.host + ":" + std::to_string(parsed.port);
}

}  // namespace sh::admin
