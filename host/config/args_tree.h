// ArgNode: a plugin's args as a JSON-like tree that remembers where each value was written.
//
// A node is null, bool, int, double, string, array or object (members keep the order they were
// written in). Every node carries its SourceLocation and its dotted path from the top of the
// file, e.g. "pluginConfig[1].args.scoringStrategy.type" in a profile file, or
// "profiles[0].pluginConfig[1].args.scoringStrategy.type" inline in schedhost.toml. Values
// that came from JSON (plugins' default args) have a path but no line.
//
// Stability: the host hands `const ArgNode*` to plugins as the opaque `sh_args*`. Children are
// heap-allocated once, when their parent is built, and a built tree is never mutated, so the
// address of every node below the root is stable for the life of the tree, even when the root
// itself is moved. Keep the root at a stable address too (ResolvedProfile holds it in a
// shared_ptr) before handing pointers out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/json/value.hpp>

#include "host/config/source_location.h"

// The opaque handle of the plugin ABI (sdk/include/schedhost/plugin.h).
struct sh_args;

namespace toml {
struct discard_comments;
template <typename Comment, template <typename...> class Table, template <typename...> class Array>
class basic_value;
}  // namespace toml

namespace sh::config {

template <typename Key, typename Value>
class OrderedTable;
// Defined in host/config/toml_value.h.
using TomlValue = toml::basic_value<toml::discard_comments, OrderedTable, std::vector>;

class ArgNode {
 public:
  enum class Kind { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  // A null node with an empty path.
  ArgNode() = default;
  // Deep conversion of a toml11 value; locations come from value.location(). A TOML date or
  // time becomes a string in TOML syntax.
  ArgNode(const TomlValue& value, std::string path);
  // Deep conversion of a JSON value; every node gets `where` (normally with no line) and its
  // path below `path`. An unsigned integer above INT64_MAX becomes a double.
  ArgNode(const boost::json::value& value, std::string path, SourceLocation where = {});

  // Parses JSON text, e.g. a plugin's default_args_json. On a syntax error returns nullopt and,
  // when `error` is given, stores a one-line reason there.
  static std::optional<ArgNode> fromJsonText(std::string_view text, std::string path = {},
                                             SourceLocation where = {},
                                             std::string* error = nullptr);

  ArgNode(ArgNode&&) noexcept = default;
  ArgNode& operator=(ArgNode&&) noexcept = default;
  ArgNode(const ArgNode&) = delete;
  ArgNode& operator=(const ArgNode&) = delete;
  ~ArgNode() = default;

  // A deep copy with the same paths and locations.
  ArgNode clone() const;
  // A deep copy whose root gets `path` and whose nodes all get `where`; children's paths are
  // rebuilt below `path`.
  ArgNode cloneAt(const std::string& path, const SourceLocation& where) const;

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::kNull; }
  bool isBool() const { return kind_ == Kind::kBool; }
  bool isInt() const { return kind_ == Kind::kInt; }
  bool isDouble() const { return kind_ == Kind::kDouble; }
  bool isNumber() const { return kind_ == Kind::kInt || kind_ == Kind::kDouble; }
  bool isString() const { return kind_ == Kind::kString; }
  bool isArray() const { return kind_ == Kind::kArray; }
  bool isObject() const { return kind_ == Kind::kObject; }

  // Scalar accessors; each returns a zero value when the kind differs. as_double converts ints.
  bool asBool() const;
  int64_t asInt() const;
  double asDouble() const;
  const std::string& asString() const;

  // Number of elements of an array or members of an object; 0 for scalars.
  std::size_t size() const { return children_.size(); }
  // The index-th array element or object member value; nullptr when out of range.
  const ArgNode* at(std::size_t index) const;
  // The index-th member key of an object; empty when out of range or not an object.
  std::string_view keyAt(std::size_t index) const;
  // The member named `key` of an object; nullptr when absent or not an object.
  const ArgNode* get(std::string_view key) const;

  const SourceLocation& where() const { return where_; }
  const std::string& path() const { return path_; }

  // Same kind and value, recursively; locations and paths are not compared. An int and a
  // double are equal when their values are.
  bool sameValue(const ArgNode& other) const;

  boost::json::value toJson() const;

  // The node as the plugin ABI's opaque handle, and back.
  const sh_args* asShArgs() const { return reinterpret_cast<const sh_args*>(this); }
  static const ArgNode* fromShArgs(const sh_args* args) {
    return reinterpret_cast<const ArgNode*>(args);
  }

  // The path of member `key` below `parent` ("a.b", or a["odd key"]) and of element `index`.
  static std::string memberPath(const std::string& parent, std::string_view key);
  static std::string elementPath(const std::string& parent, std::size_t index);

 private:
  friend ArgNode mergeDefaults(const ArgNode& defaults, const ArgNode& user);

  // Copies this node's kind and scalar value (not its children) into a new node.
  ArgNode shallowCopy(std::string path, SourceLocation where) const;
  void addChild(std::string key, ArgNode child);

  Kind kind_ = Kind::kNull;
  std::variant<std::monostate, bool, int64_t, double, std::string> scalar_;
  std::vector<std::string> keys_;                   // objects only, parallel to children_
  std::vector<std::unique_ptr<ArgNode>> children_;  // array elements or member values
  SourceLocation where_;
  std::string path_;
};

// Deep merge of a plugin's default args under the user's args: where both are objects, members
// are merged recursively (the defaults' member order first, then members only the user wrote, in
// the user's order); everywhere else the user's value replaces the default whole (arrays
// included). The result keeps the user's paths and locations; members that come only from the
// defaults get paths below their user parent and the parent's file, with no line.
ArgNode mergeDefaults(const ArgNode& defaults, const ArgNode& user);

}  // namespace sh::config
