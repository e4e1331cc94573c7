#include "host/connectors/object_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>

#include <boost/json/error.hpp>
#include <boost/json/object.hpp>
#include <boost/json/stream_parser.hpp>

#include "host/common/limits.h"

namespace sh::connectors {

namespace {

struct ParseResult {
  boost::json::value value;
  std::string error;     // empty on success
  std::size_t line = 1;  // where the parser stopped, on failure
};

ParseResult parseJson(std::string_view text) {
  ParseResult r;
  boost::json::stream_parser parser({}, jsonParseOptions());
  boost::system::error_code ec;
  std::size_t consumed = parser.write_some(text.data(), text.size(), ec);
  if (!ec && consumed < text.size()) {
    ec = boost::json::error::extra_data;
  }
  if (!ec) {
    parser.finish(ec);
  }
  if (ec) {
    r.error = jsonErrorText(ec);
    for (std::size_t i = 0; i < consumed && i < text.size(); ++i) {
      r.line += text[i] == '\n' ? 1 : 0;
    }
    return r;
  }
  r.value = parser.release();
  return r;
}

std::string tooLarge(std::size_t bytes) {
  return "object of " + std::to_string(bytes) + " bytes is larger than the limit of " +
         std::to_string(limits::kMaxObjectBytes) + " bytes";
}

// Where each element of the document's object array starts (its line and byte offset) and
// where it ends (the offset of the "," or "]" after it); see elementLines.
struct ElementSpan {
  std::size_t line = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
};

std::vector<ElementSpan> elementSpans(std::string_view text);

std::size_t firstContentLine(std::string_view text) {
  std::size_t line = 1;
  for (char c : text) {
    if (c == '\n') {
      ++line;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      break;
    }
  }
  return line;
}

void addElements(boost::json::array& items, std::string_view text, std::string_view path,
                 ObjectFileContents& out) {
  std::vector<ElementSpan> spans = elementSpans(text);
  if (spans.size() != items.size()) {
    spans.assign(items.size(), ElementSpan{firstContentLine(text), 0, 0});  // not expected
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::size_t bytes = spans[i].end - spans[i].begin;
    if (bytes > limits::kMaxObjectBytes) {
      out.problems.push_back(
          {spans[i].line, std::string(path) + "[" + std::to_string(i) + "]: " + tooLarge(bytes)});
      continue;
    }
    if (!items[i].is_object()) {
      out.problems.push_back(
          {spans[i].line, std::string(path) + "[" + std::to_string(i) + "]: expected an object"});
      continue;
    }
    out.objects.push_back({std::move(items[i]), spans[i].line});
  }
}

// JSON lines; false when no line parsed as an object (so this was not JSON lines).
bool parseLines(std::string_view text, ObjectFileContents& out) {
  bool anyObject = false;
  std::size_t lineNo = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(pos, end - pos);
    ++lineNo;
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      continue;
    }
    if (line.size() > limits::kMaxObjectBytes) {
      out.problems.push_back({lineNo, tooLarge(line.size())});
      continue;
    }
    ParseResult r = parseJson(line);
    if (!r.error.empty()) {
      out.problems.push_back({lineNo, r.error});
    } else if (!r.value.is_object()) {
      out.problems.push_back({lineNo, "expected an object"});
    } else {
      out.objects.push_back({std::move(r.value), lineNo});
      anyObject = true;
    }
  }
  return anyObject;
}

std::vector<ElementSpan> elementSpans(std::string_view text) {
  std::vector<ElementSpan> spans;
  std::size_t line = 1;
  std::size_t offset = 0;
  int depth = 0;
  int arrayDepth = -1;  // depth of the elements of the array we report on
  bool rootIsObject = false;
  bool inString = false;
  bool escaped = false;
  bool collecting = false;  // a string in the root object, possibly a key
  bool expectValue = false;
  std::string str;
  std::string key;
  for (; offset < text.size(); ++offset) {
    const char c = text[offset];
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        inString = false;
      }
      if (collecting && inString) {
        str += c;
      }
      continue;
    }
    if (c == '\n') {
      ++line;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      continue;
    }
    if (depth == arrayDepth && expectValue && c != ']') {
      spans.push_back(ElementSpan{line, offset, offset});
      expectValue = false;
    }
    switch (c) {
      case '"':
        inString = true;
        collecting = rootIsObject && depth == 1;
        str.clear();
        break;
      case ':':
        if (rootIsObject && depth == 1) {
          key = str;
        }
        break;
      case ',':
        if (depth == arrayDepth && !spans.empty()) {
          spans.back().end = offset;
          expectValue = true;
        }
        break;
      case '{':
      case '[':
        if (depth == 0) {
          rootIsObject = c == '{';
          if (c == '[') {
            arrayDepth = 1;
            expectValue = true;
          }
        } else if (c == '[' && depth == 1 && rootIsObject && key == "items" && arrayDepth < 0) {
          arrayDepth = 2;
          expectValue = true;
        }
        ++depth;
        break;
      case '}':
      case ']':
        if (c == ']' && depth == arrayDepth) {
          if (!spans.empty() && spans.back().end == spans.back().begin) {
            spans.back().end = offset;
          }
          return spans;
        }
        --depth;
        break;
      default:
        break;
    }
  }
  return spans;
}

}  // namespace

boost::json::parse_options jsonParseOptions() {
  boost::json::parse_options opts;
  opts.max_depth = limits::kMaxJsonDepth;
  return opts;
}

std::string jsonErrorText(const boost::system::error_code& ec) {
  if (ec == boost::json::error::too_deep) {
    return "invalid JSON: nested deeper than the limit of " +
           std::to_string(limits::kMaxJsonDepth) + " levels";
  }
  return "invalid JSON: " + ec.message();
}

std::vector<std::size_t> elementLines(std::string_view text) {
  std::vector<std::size_t> lines;
  for (const ElementSpan& span : elementSpans(text)) {
    lines.push_back(span.line);
  }
  return lines;
}

ObjectFileContents parseObjectFile(std::string_view text) {
  ObjectFileContents out;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return out;
  }
  ParseResult doc = parseJson(text);
  if (doc.error.empty()) {
    if (doc.value.is_array()) {
      addElements(doc.value.as_array(), text, "", out);
    } else if (!doc.value.is_object()) {
      out.problems.push_back({firstContentLine(text), "expected an object, a list or JSON lines"});
    } else if (boost::json::value* items = doc.value.as_object().if_contains("items")) {
      if (items->is_array()) {
        addElements(items->as_array(), text, "items", out);
      } else if (!items->is_null()) {
        out.problems.push_back({firstContentLine(text), "items: expected an array"});
      }
    } else if (text.size() > limits::kMaxObjectBytes) {
      out.problems.push_back({firstContentLine(text), tooLarge(text.size())});
    } else {
      out.objects.push_back({std::move(doc.value), firstContentLine(text)});
    }
    return out;
  }
  ObjectFileContents lines;
  if (parseLines(text, lines)) {
    return lines;
  }
  out.problems.push_back({doc.line, doc.error});
  return out;
}

std::optional<std::string> readFileText(const std::string& path, std::string& error) {
  const std::string what = "cannot read [" + displayName(path) + "]: ";
  const bool stdinput = path == "-";
  // Non-blocking, so a FIFO without a writer cannot hold up open(); it is refused below.
  const int fd = stdinput ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = what + std::strerror(errno);
    return std::nullopt;
  }
  struct FdCloser {
    int fd;
    bool owned;
    ~FdCloser() {
      if (owned) {
        ::close(fd);
      }
    }
  } closer{fd, !stdinput};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error = what + std::strerror(errno);
    return std::nullopt;
  }
  if (!stdinput && S_ISDIR(st.st_mode)) {
    error = what + "is a directory";
    return std::nullopt;
  }
  if (!stdinput && !S_ISREG(st.st_mode)) {
    // A device (/dev/zero) never ends and a FIFO may never be written: read whole, the file
    // must be a regular one ("-" reads standard input, a pipe included).
    error = what + "not a regular file (use - to read standard input)";
    return std::nullopt;
  }
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxFileBytes) {
    error = what + "larger than the limit of " + std::to_string(kMaxFileBytes >> 30) + " GiB";
    return std::nullopt;
  }
  try {
    std::string text;
    if (S_ISREG(st.st_mode)) {
      text.reserve(static_cast<std::size_t>(st.st_size));
    }
    char chunk[64 * 1024];
    for (;;) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n == 0) {
        return text;
      }
      if (n < 0) {
        if (errno == EINTR) {
          continue;
        }
        error = what + std::strerror(errno);
        return std::nullopt;
      }
      if (text.size() + static_cast<std::size_t>(n) > kMaxFileBytes) {
        error = what + "larger than the limit of " + std::to_string(kMaxFileBytes >> 30) + " GiB";
        return std::nullopt;
      }
      text.append(chunk, static_cast<std::size_t>(n));
    }
  } catch (const std::bad_alloc&) {
    error = what + "out of memory";
    return std::nullopt;
  }
}

std::string displayName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

}  // namespace sh::connectors
