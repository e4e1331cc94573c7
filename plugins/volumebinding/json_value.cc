// JsonValue: copy from the host's view, edit, write back.
#include "json_value.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

namespace schedhost::plugins::volumebinding {

JsonValue JsonValue::string(std::string_view s) {
  JsonValue v;
  v.type_ = Type::kString;
  v.string_ = std::string(s);
  return v;
}

JsonValue JsonValue::object() {
  JsonValue v;
  v.type_ = Type::kObject;
  return v;
}

JsonValue JsonValue::fromView(const Json& node) {
  JsonValue v;
  switch (node.type()) {
    case SH_ARGS_BOOL:
      v.type_ = Type::kBool;
      v.bool_ = node.asBool();
      break;
    case SH_ARGS_INT:
      v.type_ = Type::kInt;
      v.int_ = node.asInt();
      break;
    case SH_ARGS_DOUBLE:
      v.type_ = Type::kDouble;
      v.double_ = node.asDouble();
      break;
    case SH_ARGS_STRING:
      v.type_ = Type::kString;
      v.string_ = std::string(node.asString());
      break;
    case SH_ARGS_ARRAY:
      v.type_ = Type::kArray;
      v.items_.reserve(node.size());
      for (std::size_t i = 0; i < node.size(); ++i) {
        v.items_.push_back(fromView(node.at(i)));
      }
      break;
    case SH_ARGS_OBJECT:
      v.type_ = Type::kObject;
      v.members_.reserve(node.size());
      for (std::size_t i = 0; i < node.size(); ++i) {
        v.members_.emplace_back(std::string(node.keyAt(i)), fromView(node.at(i)));
      }
      break;
    default:
      break;
  }
  return v;
}

JsonValue& JsonValue::member(std::string_view key) {
  if (type_ != Type::kObject) {
    *this = object();
  }
  for (auto& [k, v] : members_) {
    if (k == key) {
      return v;
    }
  }
  members_.emplace_back(std::string(key), JsonValue());
  return members_.back().second;
}

std::string JsonValue::serialize() const {
  std::string out;
  write(out);
  return out;
}

void JsonValue::write(std::string& out) const {
  switch (type_) {
    case Type::kNull:
      out += "null";
      break;
    case Type::kBool:
      out += bool_ ? "true" : "false";
      break;
    case Type::kInt:
      out += std::to_string(int_);
      break;
    case Type::kDouble: {
      if (!std::isfinite(double_)) {
        out += "null";
        break;
      }
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", double_);
      out += buf;
      break;
    }
    case Type::kString:
      out += jsonQuoted(string_);
      break;
    case Type::kArray:
      out += '[';
      for (std::size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) {
          out += ',';
        }
        items_[i].write(out);
      }
      out += ']';
      break;
    case Type::kObject:
      out += '{';
      for (std::size_t i = 0; i < members_.size(); ++i) {
        if (i > 0) {
          out += ',';
        }
        out += jsonQuoted(members_[i].first);
        out += ':';
        members_[i].second.write(out);
      }
      out += '}';
      break;
  }
}

std::string jsonQuoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
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
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace schedhost::plugins::volumebinding
