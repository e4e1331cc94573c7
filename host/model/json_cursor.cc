#include "host/model/json_cursor.h"

#include <cmath>

namespace sh::model {
namespace {

bool plainKey(std::string_view key) {
  if (key.empty()) {
    return false;
  }
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string_view jsonKindName(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_:
      return "number";
    case boost::json::kind::string:
      return "string";
    case boost::json::kind::array:
      return "array";
    case boost::json::kind::object:
      return "object";
  }
  return "unknown";
}

ParseContext::ParseContext() { segments_.push_back(Segment{kRoot, false, 0, {}}); }

uint32_t ParseContext::child(uint32_t parent, std::string_view key) {
  segments_.push_back(Segment{parent, false, 0, key});
  return static_cast<uint32_t>(segments_.size() - 1);
}

uint32_t ParseContext::index(uint32_t parent, std::size_t i) {
  segments_.push_back(Segment{parent, true, i, {}});
  return static_cast<uint32_t>(segments_.size() - 1);
}

std::string ParseContext::path(uint32_t seg) const {
  std::vector<const Segment*> chain;
  for (uint32_t s = seg; s != kRoot; s = segments_[s].parent) {
    chain.push_back(&segments_[s]);
  }
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Segment& s = **it;
    if (s.isIndex) {
      out += '[';
      out += std::to_string(s.index);
      out += ']';
    } else if (plainKey(s.key)) {
      if (!out.empty()) {
        out += '.';
      }
      out += s.key;
    } else {
      out += '[';
      out += s.key;
      out += ']';
    }
  }
  return out.empty() ? std::string("<root>") : out;
}

void ParseContext::error(uint32_t seg, std::string_view message) {
  if (errors_.size() >= kMaxErrors) {
    ++moreErrors_;  // beyond what message() shows: counted, not deduplicated
    return;
  }
  std::string where = path(seg);
  for (const auto& e : errors_) {
    if (e.first == where) {
      return;  // one error per field: a type error is not followed by "required"
    }
  }
  errors_.emplace_back(std::move(where), std::string(message));
}

std::string ParseContext::message() const {
  std::string out;
  for (const auto& [where, what] : errors_) {
    if (!out.empty()) {
      out += "; ";
    }
    out += where;
    out += ": ";
    out += what;
  }
  if (moreErrors_ > 0) {
    out += "; and " + std::to_string(moreErrors_) + " more";
  }
  return out;
}

Cursor Cursor::operator[](std::string_view key) const {
  uint32_t seg = ctx_->child(segment_, key);
  if (!object()) {
    return Cursor(*ctx_, nullptr, seg);
  }
  return Cursor(*ctx_, value_->get_object().if_contains(key), seg);
}

void Cursor::typeError(std::string_view expected) const {
  std::string msg = "expected ";
  msg += expected;
  msg += ", got ";
  msg += jsonKindName(*value_);
  fail(msg);
}

bool Cursor::expect(boost::json::kind k) const {
  if (!present()) {
    return false;
  }
  if (value_->kind() == k) {
    return true;
  }
  switch (k) {
    case boost::json::kind::object:
      typeError("object");
      break;
    case boost::json::kind::array:
      typeError("array");
      break;
    case boost::json::kind::string:
      typeError("string");
      break;
    case boost::json::kind::bool_:
      typeError("boolean");
      break;
    default:
      typeError("number");
      break;
  }
  return false;
}

bool Cursor::object() const { return expect(boost::json::kind::object); }

std::optional<std::string_view> Cursor::string() const {
  if (!expect(boost::json::kind::string)) {
    return std::nullopt;
  }
  const auto& s = value_->get_string();
  return std::string_view(s.data(), s.size());
}

std::string_view Cursor::requiredString() const {
  std::optional<std::string_view> s = string();
  if (!s || s->empty()) {
    if (!present() || s) {
      fail("required");
    }
    return {};
  }
  return *s;
}

std::optional<bool> Cursor::boolean() const {
  if (!expect(boost::json::kind::bool_)) {
    return std::nullopt;
  }
  return value_->get_bool();
}

std::optional<int64_t> Cursor::integer(int64_t lo, int64_t hi) const {
  if (!present()) {
    return std::nullopt;
  }
  auto outOfRange = [&](const std::string& shown) -> std::optional<int64_t> {
    fail("value " + shown + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) +
         "]");
    return std::nullopt;
  };
  switch (value_->kind()) {
    case boost::json::kind::int64: {
      int64_t v = value_->get_int64();
      if (v < lo || v > hi) {
        return outOfRange(std::to_string(v));
      }
      return v;
    }
    case boost::json::kind::uint64: {
      uint64_t v = value_->get_uint64();
      if (hi < 0 || v > static_cast<uint64_t>(hi)) {
        return outOfRange(std::to_string(v));
      }
      return static_cast<int64_t>(v);
    }
    case boost::json::kind::double_: {
      double d = value_->get_double();
      // 2^63 is exactly representable; every integral double below it converts exactly.
      if (std::isfinite(d) && std::trunc(d) == d && d >= -9223372036854775808.0 &&
          d < 9223372036854775808.0) {
        auto v = static_cast<int64_t>(d);
        if (v < lo || v > hi) {
          return outOfRange(std::to_string(v));
        }
        return v;
      }
      fail("expected integer, got non-integral number");
      return std::nullopt;
    }
    default:
      typeError("integer");
      return std::nullopt;
  }
}

std::optional<int32_t> Cursor::int32() const {
  std::optional<int64_t> v =
      integer(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  if (!v) {
    return std::nullopt;
  }
  return static_cast<int32_t>(*v);
}

bool Cursor::atMost(std::size_t max) const {
  if (!present()) {
    return true;
  }
  std::size_t n = 0;
  if (const boost::json::array* arr = value_->if_array()) {
    n = arr->size();
  } else if (const boost::json::object* obj = value_->if_object()) {
    n = obj->size();
  }
  if (n <= max) {
    return true;
  }
  fail("too many: " + std::to_string(n) + ": must have at most " + std::to_string(max) + " items");
  return false;
}

std::size_t Cursor::size() const {
  if (!expect(boost::json::kind::array)) {
    return 0;
  }
  return value_->get_array().size();
}

}  // namespace sh::model
