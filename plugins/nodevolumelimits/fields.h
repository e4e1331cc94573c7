// Reading storage objects (declared kinds) field by field, and Go's %q for messages.
//
// The API server would refuse an object whose fields have the wrong type; a scenario or a
// replayed manifest may still carry one. Fields remembers the first such field and names the
// object and the field, so the plugin answers with an Error saying what is wrong instead of
// reading a wrong value as "absent".
#ifndef SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_FIELDS_H
#define SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_FIELDS_H

#include <schedhost/plugin.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace schedhost::plugins::nodevolumelimits {

// Go's strconv.Quote, for the messages upstream formats with %q.
std::string goQuote(std::string_view s);

class Fields {
 public:
  // `kind` names the object's kind in messages ("PersistentVolume").
  Fields(const Object& object, std::string_view kind) noexcept : object_(object), kind_(kind) {}

  // The string at the dotted `path`; nullopt when absent or null.
  std::optional<std::string_view> optionalString(std::string_view path) {
    return stringOf(object_.path(path), path);
  }
  // The same, "" when absent or null.
  std::string_view string(std::string_view path) { return optionalString(path).value_or(""); }
  // Member `key` of the object at `parent` (for keys with dots: annotations); `path` names it in
  // messages.
  std::optional<std::string_view> memberString(std::string_view parent, std::string_view key,
                                               std::string_view path) {
    Json p = object_.path(parent);
    if (p.present() && !p.isNull() && !p.isObject()) {
      fail(parent, "expected an object");
      return std::nullopt;
    }
    return stringOf(p.get(key), path);
  }
  // Whether the dotted `path` holds an object (absent or null: false).
  bool hasObject(std::string_view path) { return objectOf(object_.path(path), path); }

  // The same checks on a node found by the caller; `path` names it in messages.
  std::optional<std::string_view> stringOf(const Json& node, std::string_view path);
  bool objectOf(const Json& node, std::string_view path);
  bool arrayOf(const Json& node, std::string_view path);
  std::optional<int64_t> integerOf(const Json& node, std::string_view path);
  std::optional<bool> boolOf(const Json& node, std::string_view path);

  const Object& object() const noexcept { return object_; }
  bool ok() const noexcept { return error_.empty(); }
  // `<kind> "<ns/name>": <path>: <cause>`, for the first field of the wrong type.
  const std::string& error() const noexcept { return error_; }

 private:
  void fail(std::string_view path, std::string_view cause);

  Object object_;
  std::string_view kind_;
  std::string error_;
};

}  // namespace schedhost::plugins::nodevolumelimits

#endif  // SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_FIELDS_H
