#include "host/config/args_tree.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include <boost/json/parse.hpp>

#include "host/config/toml_value.h"

namespace sh::config {

namespace {

bool is_bare_key(std::string_view key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key.front())) != 0) {
    return false;
  }
  for (char c : key) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

SourceLocation toml_location(const TomlValue& value) {
  const toml::source_location loc = value.location();
  return SourceLocation{loc.file_name(), static_cast<int>(loc.line()),
                        static_cast<int>(loc.column())};
}

template <typename T>
std::string stream_to_string(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

const std::string& empty_string() {
  static const std::string kEmpty;
  return kEmpty;
}

}  // namespace

std::string ArgNode::member_path(const std::string& parent, std::string_view key) {
  if (is_bare_key(key)) {
    return parent.empty() ? std::string(key) : parent + "." + std::string(key);
  }
  return parent + "[\"" + std::string(key) + "\"]";
}

std::string ArgNode::element_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

ArgNode::ArgNode(const TomlValue& value, std::string path)
    : where_(toml_location(value)), path_(std::move(path)) {
  switch (value.type()) {
    case toml::value_t::empty:
      kind_ = Kind::kNull;
      break;
    case toml::value_t::boolean:
      kind_ = Kind::kBool;
      scalar_ = value.as_boolean();
      break;
    case toml::value_t::integer:
      kind_ = Kind::kInt;
      scalar_ = static_cast<int64_t>(value.as_integer());
      break;
    case toml::value_t::floating:
      kind_ = Kind::kDouble;
      scalar_ = static_cast<double>(value.as_floating());
      break;
    case toml::value_t::string:
      kind_ = Kind::kString;
      scalar_ = value.as_string().str;
      break;
    case toml::value_t::offset_datetime:
      kind_ = Kind::kString;
      scalar_ = stream_to_string(value.as_offset_datetime());
      break;
    case toml::value_t::local_datetime:
      kind_ = Kind::kString;
      scalar_ = stream_to_string(value.as_local_datetime());
      break;
    case toml::value_t::local_date:
      kind_ = Kind::kString;
      scalar_ = stream_to_string(value.as_local_date());
      break;
    case toml::value_t::local_time:
      kind_ = Kind::kString;
      scalar_ = stream_to_string(value.as_local_time());
      break;
    case toml::value_t::array: {
      kind_ = Kind::kArray;
      const auto& array = value.as_array();
      children_.reserve(array.size());
      for (std::size_t i = 0; i < array.size(); ++i) {
        children_.push_back(std::make_unique<ArgNode>(array[i], element_path(path_, i)));
      }
      break;
    }
    case toml::value_t::table: {
      kind_ = Kind::kObject;
      const auto& table = value.as_table();
      keys_.reserve(table.size());
      children_.reserve(table.size());
      for (const auto& [key, member] : table) {
        keys_.push_back(key);
        children_.push_back(std::make_unique<ArgNode>(member, member_path(path_, key)));
      }
      break;
    }
  }
}

ArgNode::ArgNode(const boost::json::value& value, std::string path, SourceLocation where)
    : where_(std::move(where)), path_(std::move(path)) {
  switch (value.kind()) {
    case boost::json::kind::null:
      kind_ = Kind::kNull;
      break;
    case boost::json::kind::bool_:
      kind_ = Kind::kBool;
      scalar_ = value.get_bool();
      break;
    case boost::json::kind::int64:
      kind_ = Kind::kInt;
      scalar_ = static_cast<int64_t>(value.get_int64());
      break;
    case boost::json::kind::uint64: {
      const uint64_t u = value.get_uint64();
      if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        kind_ = Kind::kInt;
        scalar_ = static_cast<int64_t>(u);
      } else {
        kind_ = Kind::kDouble;
        scalar_ = static_cast<double>(u);
      }
      break;
    }
    case boost::json::kind::double_:
      kind_ = Kind::kDouble;
      scalar_ = value.get_double();
      break;
    case boost::json::kind::string:
      kind_ = Kind::kString;
      scalar_ = std::string(value.get_string());
      break;
    case boost::json::kind::array: {
      kind_ = Kind::kArray;
      const boost::json::array& array = value.get_array();
      children_.reserve(array.size());
      for (std::size_t i = 0; i < array.size(); ++i) {
        children_.push_back(std::make_unique<ArgNode>(array[i], element_path(path_, i), where_));
      }
      break;
    }
    case boost::json::kind::object: {
      kind_ = Kind::kObject;
      const boost::json::object& object = value.get_object();
      keys_.reserve(object.size());
      children_.reserve(object.size());
      for (const auto& member : object) {
        const std::string_view key = member.key();
        keys_.emplace_back(key);
        children_.push_back(
            std::make_unique<ArgNode>(member.value(), member_path(path_, key), where_));
      }
      break;
    }
  }
}

std::optional<ArgNode> ArgNode::from_json_text(std::string_view text, std::string path,
                                               SourceLocation where, std::string* error) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) {
    if (error != nullptr) {
      *error = ec.message();
    }
    return std::nullopt;
  }
  return ArgNode(value, std::move(path), std::move(where));
}

ArgNode ArgNode::shallow_copy(std::string path, SourceLocation where) const {
  ArgNode out;
  out.kind_ = kind_;
  out.scalar_ = scalar_;
  out.path_ = std::move(path);
  out.where_ = std::move(where);
  return out;
}

void ArgNode::add_child(std::string key, ArgNode child) {
  if (kind_ == Kind::kObject) {
    keys_.push_back(std::move(key));
  }
  children_.push_back(std::make_unique<ArgNode>(std::move(child)));
}

ArgNode ArgNode::clone() const {
  ArgNode out = shallow_copy(path_, where_);
  out.keys_ = keys_;
  out.children_.reserve(children_.size());
  for (const auto& child : children_) {
    out.children_.push_back(std::make_unique<ArgNode>(child->clone()));
  }
  return out;
}

ArgNode ArgNode::clone_at(const std::string& path, const SourceLocation& where) const {
  ArgNode out = shallow_copy(path, where);
  out.keys_.reserve(keys_.size());
  out.children_.reserve(children_.size());
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (kind_ == Kind::kObject) {
      out.add_child(keys_[i], children_[i]->clone_at(member_path(path, keys_[i]), where));
    } else {
      out.add_child({}, children_[i]->clone_at(element_path(path, i), where));
    }
  }
  return out;
}

bool ArgNode::as_bool() const {
  const bool* b = std::get_if<bool>(&scalar_);
  return b != nullptr && *b;
}

int64_t ArgNode::as_int() const {
  const int64_t* i = std::get_if<int64_t>(&scalar_);
  return i != nullptr ? *i : 0;
}

double ArgNode::as_double() const {
  if (const double* d = std::get_if<double>(&scalar_)) {
    return *d;
  }
  if (const int64_t* i = std::get_if<int64_t>(&scalar_)) {
    return static_cast<double>(*i);
  }
  return 0.0;
}

const std::string& ArgNode::as_string() const {
  const std::string* s = std::get_if<std::string>(&scalar_);
  return s != nullptr ? *s : empty_string();
}

const ArgNode* ArgNode::at(std::size_t index) const {
  return index < children_.size() ? children_[index].get() : nullptr;
}

std::string_view ArgNode::key_at(std::size_t index) const {
  return index < keys_.size() ? std::string_view(keys_[index]) : std::string_view();
}

const ArgNode* ArgNode::get(std::string_view key) const {
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) {
      return children_[i].get();
    }
  }
  return nullptr;
}

bool ArgNode::same_value(const ArgNode& other) const {
  if (is_number() && other.is_number()) {
    if (is_int() && other.is_int()) {
      return as_int() == other.as_int();
    }
    return as_double() == other.as_double();
  }
  if (kind_ != other.kind_ || scalar_ != other.scalar_ || keys_ != other.keys_ ||
      children_.size() != other.children_.size()) {
    return false;
  }
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i]->same_value(*other.children_[i])) {
      return false;
    }
  }
  return true;
}

boost::json::value ArgNode::to_json() const {
  switch (kind_) {
    case Kind::kNull:
      return nullptr;
    case Kind::kBool:
      return as_bool();
    case Kind::kInt:
      return as_int();
    case Kind::kDouble:
      return as_double();
    case Kind::kString:
      return boost::json::string(as_string());
    case Kind::kArray: {
      boost::json::array array;
      array.reserve(children_.size());
      for (const auto& child : children_) {
        array.push_back(child->to_json());
      }
      return array;
    }
    case Kind::kObject: {
      boost::json::object object;
      object.reserve(children_.size());
      for (std::size_t i = 0; i < children_.size(); ++i) {
        object[keys_[i]] = children_[i]->to_json();
      }
      return object;
    }
  }
  return nullptr;
}

ArgNode merge_defaults(const ArgNode& defaults, const ArgNode& user) {
  if (!defaults.is_object() || !user.is_object()) {
    return user.clone();
  }
  const SourceLocation from_defaults{user.where().file, 0, 0};
  ArgNode out = user.shallow_copy(user.path(), user.where());
  for (std::size_t i = 0; i < defaults.size(); ++i) {
    const std::string& key = defaults.keys_[i];
    const ArgNode& default_value = *defaults.children_[i];
    if (const ArgNode* user_value = user.get(key)) {
      out.add_child(key, merge_defaults(default_value, *user_value));
    } else {
      out.add_child(key,
                    default_value.clone_at(ArgNode::member_path(user.path(), key), from_defaults));
    }
  }
  for (std::size_t i = 0; i < user.size(); ++i) {
    const std::string& key = user.keys_[i];
    if (defaults.get(key) == nullptr) {
      out.add_child(key, user.children_[i]->clone());
    }
  }
  return out;
}

}  // namespace sh::config
