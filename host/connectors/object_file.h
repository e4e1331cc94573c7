// Reading a file of Kubernetes objects, as the embedded cluster's initial state:
//
//   * one JSON document: a v1.List or any {"items": [...]} object (what `kubectl get
//     nodes,pods -A -o json` prints), a bare array of objects, or a single object;
//   * or JSON lines: one object per line (blank lines are skipped).
//
// Each object keeps the line it starts on, for "FILE:LINE: reason" messages. Reading never
// fails as a whole: what cannot be read becomes a problem with its line, and the rest is kept.
// A document that does not parse and has no line that parses alone as an object is one
// problem (at the parser's position) with no objects.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>
#include <boost/system/error_code.hpp>

namespace sh::connectors {

struct FileObject {
  boost::json::value value;  // always an object
  std::size_t line = 0;      // 1-based line the object starts on
};

struct FileProblem {
  std::size_t line = 0;
  std::string reason;
};

struct ObjectFileContents {
  std::vector<FileObject> objects;
  std::vector<FileProblem> problems;
};

// Boost.JSON options for JSON from outside the host: nesting bounded by limits::kMaxJsonDepth.
boost::json::parse_options jsonParseOptions();
// What a failed parse says: "invalid JSON: <reason>", the depth bound named when it was hit
// ("invalid JSON: nested deeper than the limit of 256 levels").
std::string jsonErrorText(const boost::system::error_code& ec);

// Splits `text` into objects (see above). An object larger than limits::kMaxObjectBytes is a
// problem ("object of N bytes is larger than the limit of M bytes"), not an object.
ObjectFileContents parseObjectFile(std::string_view text);

// The 1-based line on which each element of the document's object array starts: the
// elements of the root object's "items" array, or of a root array. `text` must be valid JSON;
// empty when there is no such array.
std::vector<std::size_t> elementLines(std::string_view text);

// The largest file readFileText() reads.
inline constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;

// The whole of `path` ("-": standard input, which may be a pipe). nullopt with `error` set
// ("cannot read [PATH]: reason") when it cannot be read: it does not exist or is unreadable,
// is a directory, is not a regular file (a FIFO or a device, such as /dev/zero, is refused
// without blocking), or holds more than kMaxFileBytes.
std::optional<std::string> readFileText(const std::string& path, std::string& error);

// How a path appears in messages: the path, or "<stdin>" for "-".
std::string displayName(const std::string& path);

}  // namespace sh::connectors
