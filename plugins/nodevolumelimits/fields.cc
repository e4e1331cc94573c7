#include "fields.h"

#include <cstdio>

namespace schedhost::plugins::nodevolumelimits {

namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
std::size_t utf8Length(std::string_view s, std::size_t i) noexcept {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
      return 0;
    }
  }
  return n;
}

}  // namespace

std::string goQuote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // Valid UTF-8 is kept as it is (Go escapes only non-printable runes, rare in names);
      // a stray byte is \xNN, as Go writes it.
      std::size_t n = utf8Length(s, i);
      if (n > 0) {
        out.append(s.substr(i, n));
        i += n;
        continue;
      }
    }
    char buf[8];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
  return out;
}

std::optional<std::string_view> Fields::stringOf(const Json& node, std::string_view path) {
  if (!node.present() || node.isNull()) {
    return std::nullopt;
  }
  if (!node.isString()) {
    fail(path, "expected a string");
    return std::nullopt;
  }
  return node.asString();
}

bool Fields::objectOf(const Json& node, std::string_view path) {
  if (!node.present() || node.isNull()) {
    return false;
  }
  if (!node.isObject()) {
    fail(path, "expected an object");
    return false;
  }
  return true;
}

bool Fields::arrayOf(const Json& node, std::string_view path) {
  if (!node.present() || node.isNull()) {
    return false;
  }
  if (!node.isArray()) {
    fail(path, "expected an array");
    return false;
  }
  return true;
}

std::optional<int64_t> Fields::integerOf(const Json& node, std::string_view path) {
  if (!node.present() || node.isNull()) {
    return std::nullopt;
  }
  // json_int also reads a double that is whole (2.0), as Go's decoder does for an int.
  if (!node.isInt() && !(node.isNumber() && static_cast<double>(node.asInt()) == node.asDouble())) {
    fail(path, "expected an integer");
    return std::nullopt;
  }
  return node.asInt();
}

std::optional<bool> Fields::boolOf(const Json& node, std::string_view path) {
  if (!node.present() || node.isNull()) {
    return std::nullopt;
  }
  if (!node.isBool()) {
    fail(path, "expected a boolean");
    return std::nullopt;
  }
  return node.asBool();
}

void Fields::fail(std::string_view path, std::string_view cause) {
  if (!error_.empty()) {
    return;
  }
  std::string name(object_.name());
  if (!object_.ns().empty()) {
    name = std::string(object_.ns()) + "/" + name;
  }
  error_ = std::string(kind_) + " " + goQuote(name) + ": " + std::string(path) + ": " +
           std::string(cause);
}

}  // namespace schedhost::plugins::nodevolumelimits
