// Label and field selectors in the API's text syntax (the `labelSelector` and `fieldSelector`
// query parameters, kubectl's -l): what a plugin declares on a kind, and what it passes to
// object_list. Upstream: k8s.io/apimachinery/pkg/labels/selector.go (Parse) and
// pkg/fields/selector.go (ParseSelector).
//
//   labels   comma-separated requirements, all of which must hold:
//              key=value  key==value  key!=value  key in (a,b)  key notin (a,b)  key  !key
//              key>N  key<N (integers)
//            keys are qualified names ("prefix/name"), values label values; "" matches all.
//   fields   comma-separated  path=value  path==value  path!=value , a path being a dotted
//            field path ("metadata.name", "status.phase", "spec.nodeName"); "" matches all.
//            A path absent from an object reads as "", as the API server's field sets do.
#pragma once

#include <schedhost/plugin.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

namespace sh::connectors {

class LabelSelectorText {
 public:
  // Parses `text`; nullopt with `error` holding upstream's message when it does not parse
  // (offending text is quoted up to 256 bytes). Linear in the text, with no recursion.
  static std::optional<LabelSelectorText> parse(std::string_view text, std::string& error);
  LabelSelectorText() = default;  // matches everything

  // Whether labels (key, value pairs as text) satisfy every requirement.
  bool matches(const sh_label* labels, std::size_t count) const;
  bool empty() const { return requirements_.empty(); }
  // The canonical text, upstream's String(): requirements sorted by key (as Parse leaves them),
  // set values sorted and deduplicated, whitespace dropped.
  std::string text() const;

 private:
  class Parser;
  enum class Op {
    kEquals,
    kDoubleEquals,  // matches as kEquals; kept apart so that text() writes "==" back
    kNotEquals,
    kIn,
    kNotIn,
    kExists,
    kDoesNotExist,
    kGreater,
    kLess,
  };
  struct Requirement {
    std::string key;
    Op op = Op::kExists;
    std::vector<std::string> values;  // sorted; one value but for kIn, kNotIn
    int64_t number = 0;               // kGreater, kLess
  };
  std::vector<Requirement> requirements_;
};

class FieldSelectorText {
 public:
  // Parses `text`; nullopt with `error` holding upstream's message when it does not parse.
  static std::optional<FieldSelectorText> parse(std::string_view text, std::string& error);
  FieldSelectorText() = default;  // matches everything

  // Whether the object's fields satisfy every requirement. A field that is a number or a
  // boolean compares as its JSON text ("3", "true"); null reads as "", an object or array as
  // its JSON text.
  bool matches(const boost::json::value& object) const;
  bool empty() const { return requirements_.empty(); }
  // Upstream's String(): terms sorted by their text, values escaped, "==" written "=".
  std::string text() const;

 private:
  struct Requirement {
    std::string path;  // dotted
    bool equals = true;
    std::string value;
  };
  std::vector<Requirement> requirements_;
};

}  // namespace sh::connectors
