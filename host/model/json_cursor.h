// Typed, path-tracking reads over a boost::json::value, for the Pod and Node parsers.
//
// A Cursor is a (value, path) pair. Reading a missing or null field yields "absent", never an
// error; reading a field of the wrong type records "<path>: expected <type>, got <type>" in
// the ParseContext and yields absent. Parsers therefore read straight through and ask the
// context at the end whether anything was wrong, collecting every error, not just the first.
//
// Paths are recorded as a tree of segments in the context and rendered only for errors:
// "spec.containers[1].resources.requests.cpu". Object keys that are not plain identifiers
// are bracketed: "metadata.labels[app.kubernetes.io/name]".
//
// Nothing here throws or asserts on any JSON input.
#ifndef SCHEDHOST_HOST_MODEL_JSON_CURSOR_H
#define SCHEDHOST_HOST_MODEL_JSON_CURSOR_H

#include <boost/json/value.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sh::model {

class ParseContext {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr std::size_t kMaxErrors = 8;

  ParseContext();

  // New path segments below `parent`. `key` must outlive the context.
  uint32_t child(uint32_t parent, std::string_view key);
  uint32_t index(uint32_t parent, std::size_t i);
  std::string path(uint32_t seg) const;

  // Records "<path>: <message>", at most one per path; past kMaxErrors only counts.
  void error(uint32_t seg, std::string_view message);
  bool ok() const { return errors_.empty(); }
  // The recorded errors joined with "; ", and how many more there were.
  std::string message() const;

 private:
  struct Segment {
    uint32_t parent;
    bool isIndex;
    std::size_t index;
    std::string_view key;
  };
  std::vector<Segment> segments_;
  std::vector<std::pair<std::string, std::string>> errors_;  // path, message
  std::size_t moreErrors_ = 0;
};

class Cursor {
 public:
  Cursor(ParseContext& ctx, const boost::json::value* value, uint32_t segment = ParseContext::kRoot)
      : ctx_(&ctx), value_(value), segment_(segment) {}

  // True when the field exists and is not null.
  bool present() const { return value_ != nullptr && !value_->is_null(); }
  const boost::json::value* raw() const { return present() ? value_ : nullptr; }
  ParseContext& context() const { return *ctx_; }
  uint32_t segment() const { return segment_; }
  std::string path() const { return ctx_->path(segment_); }

  // A member; absent when missing. Reading a member of a non-object is a type error.
  Cursor operator[](std::string_view key) const;

  // True for a present object; a present non-object is a type error.
  bool object() const;
  // Present strings; absent (and an error if present) otherwise.
  std::optional<std::string_view> string() const;
  std::string_view stringOr(std::string_view fallback) const { return string().value_or(fallback); }
  // A non-empty string; "required" error when missing or empty.
  std::string_view requiredString() const;
  std::optional<bool> boolean() const;
  // An integer in [lo, hi]; integral floating numbers are accepted.
  std::optional<int64_t> integer(int64_t lo = std::numeric_limits<int64_t>::min(),
                                 int64_t hi = std::numeric_limits<int64_t>::max()) const;
  std::optional<int32_t> int32() const;

  // Number of elements of a present array (0 otherwise; a present non-array is an error).
  std::size_t size() const;
  // False, with "too many: N: must have at most MAX items" recorded, when this is an array or
  // an object of more than `max` entries; true otherwise. O(1): the input limits
  // (host/common/limits.h) are checked before a list is walked.
  bool atMost(std::size_t max) const;
  // Calls f(Cursor element) for each array element.
  template <class F>
  void each(F&& f) const {
    if (!expect(boost::json::kind::array)) {
      return;
    }
    const auto& arr = value_->get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      f(Cursor(*ctx_, &arr[i], ctx_->index(segment_, i)));
    }
  }
  // Calls f(Cursor element) for each array element that is an object; any other element,
  // null included, is a type error.
  template <class F>
  void eachObject(F&& f) const {
    each([&](const Cursor& item) {
      if (item.object()) {
        f(item);
      } else if (!item.present()) {
        item.fail("expected object, got null");
      }
    });
  }
  // Calls f(std::string_view key, Cursor value) for each object member.
  template <class F>
  void members(F&& f) const {
    if (!object()) {
      return;
    }
    for (const auto& kv : value_->get_object()) {
      std::string_view key(kv.key().data(), kv.key().size());
      f(key, Cursor(*ctx_, &kv.value(), ctx_->child(segment_, key)));
    }
  }

  // Records an error at this path.
  void fail(std::string_view message) const { ctx_->error(segment_, message); }

 private:
  // True for a present value of kind `k`; records a type error for other present values.
  bool expect(boost::json::kind k) const;
  void typeError(std::string_view expected) const;

  ParseContext* ctx_;
  const boost::json::value* value_;
  uint32_t segment_;
};

// "object", "array", "string", "number", "boolean" or "null".
std::string_view jsonKindName(const boost::json::value& v);

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_JSON_CURSOR_H
