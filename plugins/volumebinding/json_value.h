// A small mutable JSON tree: what the binder needs to write a changed object (a PersistentVolume
// with its claimRef, a PersistentVolumeClaim with the selected-node annotation) from the host's
// read-only view of it. Built from a schedhost::Json node, changed member by member and written
// back as text. Objects keep their members' order.
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_JSON_VALUE_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_JSON_VALUE_H

#include <schedhost/plugin.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumebinding {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  JsonValue() = default;
  static JsonValue string(std::string_view s);
  static JsonValue object();
  // A deep copy of a read-only node (a NULL node is JSON null).
  static JsonValue fromView(const Json& node);

  Type type() const noexcept { return type_; }
  bool isObject() const noexcept { return type_ == Type::kObject; }

  // The member `key` of an object, added (as null) when absent; a non-object becomes an empty
  // object first.
  JsonValue& member(std::string_view key);
  // Replaces or adds the member `key`.
  void set(std::string_view key, JsonValue value) { member(key) = std::move(value); }

  // The JSON text, without spaces.
  std::string serialize() const;

 private:
  void write(std::string& out) const;

  Type type_ = Type::kNull;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

// `s` as a JSON string literal, quotes included.
std::string jsonQuoted(std::string_view s);

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_JSON_VALUE_H
