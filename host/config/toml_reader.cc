#include "host/config/toml_reader.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>

#include "host/common/limits.h"
#include "host/common/regular_file.h"
#include "host/common/trim.h"
#include "host/config/args_tree.h"

namespace sh::config {

namespace {

// The offset of the first byte of `text` that does not belong to a well-formed UTF-8 sequence
// (Unicode table 3-7: no overlong forms, surrogates or code points past U+10FFFF); npos when
// there is none. A TOML document must be valid UTF-8, and checking it before toml11 does also
// keeps such bytes from its literal-string reader, which in toml11 3.7 reads past the end of
// its buffer while reporting them.
std::size_t firstInvalidUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b < 0x80) {
      ++i;
      continue;
    }
    if (b >= 0xC2 && b <= 0xDF) {
      length = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      length = 3;
      lo = b == 0xE0 ? 0xA0 : 0x80;
      hi = b == 0xED ? 0x9F : 0xBF;
    } else if (b >= 0xF0 && b <= 0xF4) {
      length = 4;
      lo = b == 0xF0 ? 0x90 : 0x80;
      hi = b == 0xF4 ? 0x8F : 0xBF;
    } else {
      return i;
    }
    if (i + length > text.size()) {
      return i;
    }
    for (std::size_t k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) {
        return i;
      }
    }
    i += length;
  }
  return std::string_view::npos;
}

// " 12 | text" -> 12 and the offset of "text"; nullopt for anything else.
std::optional<std::pair<int, std::size_t>> snippetLine(std::string_view line) {
  const auto bar = line.find(" | ");
  if (bar == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string number = std::string(trimmed(line.substr(0, bar), " \t\r"));
  if (number.empty() ||
      !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::make_pair(std::stoi(number), bar + 3);
}

// The nesting a TOML text asks for, measured without parsing it: toml11's parser recurses into
// arrays and inline tables, and the tables that dotted keys and headers open are walked
// recursively afterwards, so a file nested thousands of levels deep would overflow the stack.
// Depth counts open arrays and inline tables, the parts of dotted keys (in headers, at the top
// level and inside inline tables) and the header's table. Strings and comments are skipped; the
// scan is linear and keeps one small entry per open bracket, so it stops at the limit.
// nullopt when within limits::kMaxTomlDepth, else where the limit was passed.
std::optional<std::pair<int, int>> tooDeep(std::string_view text) {
  struct Level {
    char open;         // '[' or '{'
    std::size_t base;  // depth below the header's table of the value this bracket is
  };
  std::vector<Level> stack;
  std::size_t headerDepth = 0;  // tables the last [header] or [[header]] opened
  std::size_t keyParts = 0;     // dots seen in the key being read, at the innermost level
  bool inKey = true;            // reading a key (else a value)
  bool inHeader = false;
  bool lineStart = true;  // nothing but spaces yet on this top-level line
  int line = 1;
  int column = 0;
  // Below the header's table: the open brackets and the dotted keys that lead to them.
  const auto innerDepth = [&] { return (stack.empty() ? 0 : stack.back().base + 1) + keyParts; };
  const auto tooDeepNow = [&] { return headerDepth + innerDepth() > limits::kMaxTomlDepth; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      if (stack.empty()) {
        inKey = true;
        inHeader = false;
        keyParts = 0;
        lineStart = true;
      }
      continue;
    }
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') {
        ++i;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      // A string: basic ("...", escapes) or literal ('...'), single- or multi-line.
      const bool multi = text.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "\'\'\'");
      const std::size_t start = i;
      i += multi ? 3 : 1;
      while (i < text.size()) {
        if (text[i] == '\\' && c == '"') {
          if (i + 1 < text.size() && text[i + 1] == '\n') {
            ++line;
            column = 0;
          }
          i += 2;
          continue;
        }
        if (text[i] == '\n') {
          if (!multi) {
            --i;  // unterminated: the parser reports it; the newline is read as one
            break;
          }
          ++line;
          column = 0;
        }
        if (text[i] == c && (!multi || text.substr(i, 3) == text.substr(start, 3))) {
          i += multi ? 2 : 0;
          break;
        }
        ++i;
      }
      lineStart = false;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      continue;
    }
    if (inHeader) {
      if (c == '.') {
        ++keyParts;
      } else if (c == '[') {
        ++headerDepth;  // [[array of tables]]: the array is one more level
      } else if (c == ']') {
        headerDepth += keyParts + 1;
        keyParts = 0;
        inHeader = false;
        inKey = false;  // the rest of the line is "]" and spaces
        if (headerDepth > limits::kMaxTomlDepth) {
          return std::make_pair(line, column);
        }
      }
      continue;
    }
    if (c == '[' && stack.empty() && lineStart) {
      inHeader = true;
      headerDepth = 0;
      keyParts = 0;
      lineStart = false;
      continue;
    }
    lineStart = false;
    if (inKey) {
      if (c == '.') {
        ++keyParts;
        if (tooDeepNow()) {
          return std::make_pair(line, column);
        }
      } else if (c == '=') {
        inKey = false;
      } else if (c == '}' && !stack.empty()) {
        stack.pop_back();  // an empty inline table, or a trailing ","
        keyParts = 0;
        inKey = false;
      }
      continue;
    }
    if (c == '[' || c == '{') {
      stack.push_back(Level{c, innerDepth()});
      keyParts = 0;
      inKey = c == '{';
      if (tooDeepNow()) {
        return std::make_pair(line, column);
      }
    } else if ((c == ']' || c == '}') && !stack.empty()) {
      stack.pop_back();
      keyParts = 0;
    } else if (c == ',' && !stack.empty() && stack.back().open == '{') {
      keyParts = 0;
      inKey = true;
    }
  }
  return std::nullopt;
}

}  // namespace

Diagnostic syntaxErrorDiagnostic(const std::string& what, const SourceLocation& fallback) {
  std::vector<std::string> lines;
  {
    std::istringstream in(what);
    for (std::string line; std::getline(in, line);) {
      lines.push_back(line);
    }
  }
  std::string reason = lines.empty() ? std::string("syntax error") : lines.front();
  if (reason.rfind("[error]", 0) == 0) {
    reason = std::string(trimmed(reason.substr(7), " \t\r"));
  }
  // "toml::parse_array: value having ..." -> "value having ...".
  if (reason.rfind("toml::", 0) == 0) {
    const auto colon = reason.find(": ");
    if (colon != std::string::npos) {
      reason = reason.substr(colon + 2);
    }
  }

  SourceLocation where = fallback;
  std::string label;
  std::size_t textOffset = 0;
  bool haveLine = false;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::string bare = std::string(trimmed(line, " \t\r"));
    if (bare.rfind("--> ", 0) == 0) {
      where.file = std::string(trimmed(bare.substr(4), " \t\r"));
      haveLine = false;
      continue;
    }
    if (auto numbered = snippetLine(line)) {
      where.line = numbered->first;
      where.column = 1;
      textOffset = numbered->second;
      haveLine = true;
      label.clear();
      continue;
    }
    const auto caret = line.find('^');
    if (haveLine && caret != std::string::npos && bare.rfind("|", 0) == 0) {
      where.column = caret >= textOffset ? static_cast<int>(caret - textOffset) + 1 : 1;
      std::string rest(trimmed(std::string_view(line).substr(caret + 1), " \t\r"));
      rest.erase(0, rest.find_first_not_of("-~^"));
      label = std::string(trimmed(rest, " \t\r"));
    }
  }
  if (!label.empty() && label.back() == '.') {
    label.pop_back();
  }
  if (!reason.empty() && reason.back() == '.') {
    reason.pop_back();
  }
  std::string message = "invalid TOML: " + reason;
  if (!label.empty() && label != reason) {
    message += " (" + label + ")";
  }
  return Diagnostic{std::move(where), std::string(), std::move(message), Severity::kError};
}

std::optional<TomlValue> parseToml(std::string_view text, const std::string& fileName,
                                   Diagnostics& diags) {
  if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos) {
    const std::string_view before = text.substr(0, bad);
    const std::size_t lineStart = before.rfind('\n') + 1;  // npos + 1 == 0
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[bad]));
    diags.error(SourceLocation{fileName,
                               static_cast<int>(1 + std::count(before.begin(), before.end(), '\n')),
                               static_cast<int>(1 + bad - lineStart)},
                {}, std::string("invalid TOML: not valid UTF-8 (byte ") + byte + ")");
    return std::nullopt;
  }
  if (const auto where = tooDeep(text)) {
    diags.error(SourceLocation{fileName, where->first, where->second}, {},
                "invalid TOML: nested deeper than the limit of " +
                    std::to_string(limits::kMaxTomlDepth) + " levels");
    return std::nullopt;
  }
  std::istringstream in{std::string(text)};
  try {
    return toml::parse<toml::discard_comments, OrderedTable, std::vector>(in, fileName);
  } catch (const toml::syntax_error& e) {
    SourceLocation fallback = SourceLocation{fileName, static_cast<int>(e.location().line()),
                                             static_cast<int>(e.location().column())};
    diags.add(syntaxErrorDiagnostic(e.what(), fallback));
  } catch (const std::exception& e) {
    diags.error(SourceLocation{fileName, 0, 0}, {}, std::string("invalid TOML: ") + e.what());
  }
  return std::nullopt;
}

std::optional<std::string> readConfigFile(const std::filesystem::path& path, Diagnostics& diags) {
  std::string error;
  std::optional<std::string> text =
      readRegularFile(path.string(), limits::kMaxConfigFileBytes, error);
  if (!text) {
    // readRegularFile names the path first; the location already does.
    const std::string prefix = path.string() + ": ";
    std::string cause = error.rfind(prefix, 0) == 0 ? error.substr(prefix.size()) : error;
    diags.error(SourceLocation{path.string(), 0, 0}, {}, "cannot read file: " + cause);
  }
  return text;
}

std::optional<TomlValue> parseTomlFile(const std::filesystem::path& path, Diagnostics& diags) {
  std::optional<std::string> text = readConfigFile(path, diags);
  if (!text) {
    return std::nullopt;
  }
  return parseToml(*text, path.string(), diags);
}

namespace {
thread_local const LineMapScope* activeLineMap = nullptr;
}  // namespace

LineMapScope::LineMapScope(std::string file, const std::vector<SourceLocation>& lines)
    : file_(std::move(file)), lines_(lines), previous_(activeLineMap) {
  activeLineMap = this;
}

LineMapScope::~LineMapScope() { activeLineMap = previous_; }

std::optional<SourceLocation> LineMapScope::map(const std::string& file, int line) {
  for (const LineMapScope* scope = activeLineMap; scope != nullptr; scope = scope->previous_) {
    if (scope->file_ == file) {
      if (line >= 1 && static_cast<std::size_t>(line) <= scope->lines_.size()) {
        return scope->lines_[static_cast<std::size_t>(line) - 1];
      }
      return SourceLocation{file, 0, 0};
    }
  }
  return std::nullopt;
}

SourceLocation locationOf(const TomlValue& value) {
  const toml::source_location loc = value.location();
  SourceLocation where{loc.file_name(), static_cast<int>(loc.line()),
                       static_cast<int>(loc.column())};
  if (auto mapped = LineMapScope::map(where.file, where.line)) {
    return *mapped;
  }
  return where;
}

std::string tomlTypeName(const TomlValue& value) {
  switch (value.type()) {
    case toml::value_t::empty:
      return "nothing";
    case toml::value_t::boolean:
      return "a boolean";
    case toml::value_t::integer:
      return "an integer";
    case toml::value_t::floating:
      return "a float";
    case toml::value_t::string:
      return "a string";
    case toml::value_t::offset_datetime:
    case toml::value_t::local_datetime:
    case toml::value_t::local_date:
    case toml::value_t::local_time:
      return "a date/time";
    case toml::value_t::array:
      return "an array";
    case toml::value_t::table:
      return "a table";
  }
  return "an unknown type";
}

TableReader::TableReader(const TomlValue& table, std::string path, Diagnostics& diags)
    : table_(table), path_(std::move(path)), diags_(diags) {}

std::string TableReader::pathOf(std::string_view key) const {
  return ArgNode::memberPath(path_, key);
}

void TableReader::wrongType(Diagnostics& diags, const TomlValue& value, const std::string& path,
                            std::string_view what) {
  diags.error(locationOf(value), path,
              "expected " + std::string(what) + ", got " + tomlTypeName(value));
}

const TomlValue* TableReader::find(std::string_view key) {
  known_.emplace_back(key);
  if (!table_.is_table()) {
    return nullptr;
  }
  const auto& table = table_.as_table();
  const auto it = table.find(std::string(key));
  return it == table.end() ? nullptr : &it->second;
}

std::optional<int64_t> TableReader::integer(std::string_view key) {
  const TomlValue* value = find(key);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->is_integer()) {
    wrongType(diags_, *value, pathOf(key), "an integer");
    return std::nullopt;
  }
  return static_cast<int64_t>(value->as_integer());
}

std::optional<bool> TableReader::boolean(std::string_view key) {
  const TomlValue* value = find(key);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->is_boolean()) {
    wrongType(diags_, *value, pathOf(key), "a boolean");
    return std::nullopt;
  }
  return value->as_boolean();
}

std::optional<std::string> TableReader::string(std::string_view key) {
  const TomlValue* value = find(key);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->is_string()) {
    wrongType(diags_, *value, pathOf(key), "a string");
    return std::nullopt;
  }
  return value->as_string().str;
}

const TomlValue* TableReader::table(std::string_view key) {
  const TomlValue* value = find(key);
  if (value != nullptr && !value->is_table()) {
    wrongType(diags_, *value, pathOf(key), "a table");
    return nullptr;
  }
  return value;
}

const TomlValue* TableReader::array(std::string_view key) {
  const TomlValue* value = find(key);
  if (value != nullptr && !value->is_array()) {
    wrongType(diags_, *value, pathOf(key), "an array");
    return nullptr;
  }
  return value;
}

std::optional<std::vector<std::string>> TableReader::stringArray(std::string_view key) {
  const TomlValue* value = find(key);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->is_array()) {
    wrongType(diags_, *value, pathOf(key), "an array of strings");
    return std::nullopt;
  }
  std::vector<std::string> out;
  const auto& items = value->as_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_string()) {
      wrongType(diags_, items[i], ArgNode::elementPath(pathOf(key), i), "a string");
      continue;
    }
    out.push_back(items[i].as_string().str);
  }
  return out;
}

void TableReader::finish() {
  if (!table_.is_table()) {
    return;
  }
  for (const auto& [key, value] : table_.as_table()) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      diags_.error(locationOf(value), pathOf(key), "unknown field \"" + key + "\"");
    }
  }
}

}  // namespace sh::config
