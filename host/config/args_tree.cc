#include "host/config/args_tree.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include <boost/json/parse.hpp>

#include "host/config/toml_reader.h"
#include "host/config/toml_value.h"

namespace sh::config {

namespace {

bool isBareKey(std::string_view key) {
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

// locationOf: through the line map of a translated KubeSchedulerConfiguration too.
SourceLocation tomlLocation(const TomlValue& value) { return locationOf(value); }

template <typename T>
std::string streamToString(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

const std::string& emptyString() {
  static const std::string kEmpty;
  return kEmpty;
}

}  // namespace

std::string ArgNode::memberPath(const std::string& parent, std::string_view key) {
  if (isBareKey(key)) {
    return parent.empty() ? std::string(key) : parent + "." + std::string(key);
  }
  return parent + "[\"" + std::string(key) + "\"]";
}

std::string ArgNode::elementPath(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

ArgNode::ArgNode(const TomlValue& value, std::string path)
    : where_(tomlLocation(value)), path_(std::move(path)) {
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
      scalar_ = streamToString(value.as_offset_datetime());
      break;
    case toml::value_t::local_datetime:
      kind_ = Kind::kString;
      scalar_ = streamToString(value.as_local_datetime());
      break;
    case toml::value_t::local_date:
      kind_ = Kind::kString;
      scalar_ = streamToString(value.as_local_date());
      break;
    case toml::value_t::local_time:
      kind_ = Kind::kString;
      scalar_ = streamToString(value.as_local_time());
      break;
    case toml::value_t::array: {
      kind_ = Kind::kArray;
      const auto& array = value.as_array();
      children_.reserve(array.size());
      for (std::size_t i = 0; i < array.size(); ++i) {
        children_.push_back(std::make_unique<ArgNode>(array[i], elementPath(path_, i)));
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
        children_.push_back(std::make_unique<ArgNode>(member, memberPath(path_, key)));
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
        children_.push_back(std::make_unique<ArgNode>(array[i], elementPath(path_, i), where_));
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
            std::make_unique<ArgNode>(member.value(), memberPath(path_, key), where_));
      }
      break;
    }
  }
}

std::optional<ArgNode> ArgNode::fromJsonText(std::string_view text, std::string path,
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

ArgNode ArgNode::shallowCopy(std::string path, SourceLocation where) const {
  ArgNode out;
  out.kind_ = kind_;
  out.scalar_ = scalar_;
  out.path_ = std::move(path);
  out.where_ = std::move(where);
  return out;
}

void ArgNode::addChild(std::string key, ArgNode child) {
  if (kind_ == Kind::kObject) {
    keys_.push_back(std::move(key));
  }
  children_.push_back(std::make_unique<ArgNode>(std::move(child)));
}

ArgNode ArgNode::clone() const {
  ArgNode out = shallowCopy(path_, where_);
  out.keys_ = keys_;
  out.children_.reserve(children_.size());
  for (const auto& child : children_) {
    out.children_.push_back(std::make_unique<ArgNode>(child->clone()));
  }
  return out;
}

ArgNode ArgNode::cloneAt(const std::string& path, const SourceLocation& where) const {
  ArgNode out = shallowCopy(path, where);
  out.keys_.reserve(keys_.size());
  out.children_.reserve(children_.size());
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (kind_ == Kind::kObject) {
      out.addChild(keys_[i], children_[i]->cloneAt(memberPath(path, keys_[i]), where));
    } else {
      out.addChild({}, children_[i]->cloneAt(elementPath(path, i), where));
    }
  }
  return out;
}

bool ArgNode::asBool() const {
  const bool* b = std::get_if<bool>(&scalar_);
  return b != nullptr && *b;
}

int64_t ArgNode::asInt() const {
  const int64_t* i = std::get_if<int64_t>(&scalar_);
  return i != nullptr ? *i : 0;
}

double ArgNode::asDouble() const {
  if (const double* d = std::get_if<double>(&scalar_)) {
    return *d;
  }
  if (const int64_t* i = std::get_if<int64_t>(&scalar_)) {
    return static_cast<double>(*i);
  }
  return 0.0;
}

const std::string& ArgNode::asString() const {
  const std::string* s = std::get_if<std::string>(&scalar_);
  return s != nullptr ? *s : emptyString();
}

const ArgNode* ArgNode::at(std::size_t index) const {
  return index < children_.size() ? children_[index].get() : nullptr;
}

std::string_view ArgNode::keyAt(std::size_t index) const {
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

bool ArgNode::sameValue(const ArgNode& other) const {
  if (isNumber() && other.isNumber()) {
    if (isInt() && other.isInt()) {
      return asInt() == other.asInt();
    }
    return asDouble() == other.asDouble();
  }
  if (kind_ != other.kind_ || scalar_ != other.scalar_ || keys_ != other.keys_ ||
      children_.size() != other.children_.size()) {
    return false;
  }
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i]->sameValue(*other.children_[i])) {
      return false;
    }
  }
  return true;
}

boost::json::value ArgNode::toJson() const {
  switch (kind_) {
    case Kind::kNull:
      return nullptr;
    case Kind::kBool:
      return asBool();
    case Kind::kInt:
      return asInt();
    case Kind::kDouble:
      return asDouble();
    case Kind::kString:
      return boost::json::string(asString());
    case Kind::kArray: {
      boost::json::array array;
      array.reserve(children_.size());
      for (const auto& child : children_) {
        array.push_back(child->toJson());
      }
      return array;
    }
    case Kind::kObject: {
      boost::json::object object;
      object.reserve(children_.size());
      for (std::size_t i = 0; i < children_.size(); ++i) {
        object[keys_[i]] = children_[i]->toJson();
      }
      return object;
    }
  }
  return nullptr;
}

ArgNode mergeDefaults(const ArgNode& defaults, const ArgNode& user) {
  if (!defaults.isObject() || !user.isObject()) {
    return user.clone();
  }
  const SourceLocation fromDefaults{user.where().file, 0, 0};
  ArgNode out = user.shallowCopy(user.path(), user.where());
  for (std::size_t i = 0; i < defaults.size(); ++i) {
    const std::string& key = defaults.keys_[i];
    const ArgNode& defaultValue = *defaults.children_[i];
    if (const ArgNode* userValue = user.get(key)) {
      out.addChild(key, mergeDefaults(defaultValue, *userValue));
    } else {
      out.addChild(key, defaultValue.cloneAt(ArgNode::memberPath(user.path(), key), fromDefaults));
    }
  }
  for (std::size_t i = 0; i < user.size(); ++i) {
    const std::string& key = user.keys_[i];
    if (defaults.get(key) == nullptr) {
      out.addChild(key, user.children_[i]->clone());
    }
  }
  return out;
}

}  // namespace sh::config
