// Reading TOML configuration: parsing with diagnostics, and a schema-checking table reader.
// Internal to the config subsystem.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/config/diagnostics.h"
#include "host/config/toml_value.h"

namespace sh::config {

// Parses TOML text. On a syntax error adds one diagnostic (see syntax_error_diagnostic) and
// returns nullopt. `file_name` is what locations and diagnostics will name.
std::optional<TomlValue> parseToml(std::string_view text, const std::string& fileName,
                                   Diagnostics& diags);
// The whole text of a configuration file: a regular file of at most limits::kMaxConfigFileBytes,
// opened without blocking (host/common/regular_file.h). nullopt, with an error at the file
// ("PATH: cannot read file: not a regular file (a FIFO)"), otherwise.
std::optional<std::string> readConfigFile(const std::filesystem::path& path, Diagnostics& diags);
// Reads (readConfigFile) and parses a file; an unreadable file is a diagnostic too.
std::optional<TomlValue> parseTomlFile(const std::filesystem::path& path, Diagnostics& diags);

// Turns the text of a toml::syntax_error into a diagnostic. toml11 writes the reason on the
// first line ("[error] toml::parse_array: <reason>") and then one or more snippets:
//    --> FILE
//      |
//    3 | c = "x
//      | ^--- it is not a valid value.
// The last snippet is the offending spot: its line number, the caret's column and its label
// are used. `fallback` is used when the text has no snippet.
Diagnostic syntaxErrorDiagnostic(const std::string& what, const SourceLocation& fallback);

// Where `value` was written: its file, line and column, or, inside a LineMapScope for its
// file, the position in the original file the TOML was translated from.
SourceLocation locationOf(const TomlValue& value);

// While alive, on this thread, locationOf() reports positions in `file` through `lines`
// (lines[i] for line i + 1): the TOML translated from a KubeSchedulerConfiguration
// (kube_scheduler_configuration.h) names the lines of the YAML an operator wrote.
class LineMapScope {
 public:
  LineMapScope(std::string file, const std::vector<SourceLocation>& lines);
  ~LineMapScope();
  LineMapScope(const LineMapScope&) = delete;
  LineMapScope& operator=(const LineMapScope&) = delete;

  // The position `line` of `file` stands for, or nullopt when no scope maps it.
  static std::optional<SourceLocation> map(const std::string& file, int line);

 private:
  std::string file_;
  const std::vector<SourceLocation>& lines_;
  const LineMapScope* previous_;
};
// "a string", "an integer", ... for messages.
std::string tomlTypeName(const TomlValue& value);

// Reads the fields of one TOML table against a schema: each accessor marks its key as known
// and reports a wrong type; finish() reports every key nobody asked for as an unknown field.
class TableReader {
 public:
  // `path` is the table's dotted path ("" for the top of a file).
  TableReader(const TomlValue& table, std::string path, Diagnostics& diags);

  // The value under `key` whatever its type, or nullptr when absent.
  const TomlValue* find(std::string_view key);
  std::optional<int64_t> integer(std::string_view key);
  std::optional<bool> boolean(std::string_view key);
  std::optional<std::string> string(std::string_view key);
  const TomlValue* table(std::string_view key);
  const TomlValue* array(std::string_view key);
  // An array of strings; wrong elements are reported and skipped.
  std::optional<std::vector<std::string>> stringArray(std::string_view key);

  // Reports the keys that no accessor asked for.
  void finish();

  std::string pathOf(std::string_view key) const;
  const std::string& path() const { return path_; }
  SourceLocation where() const { return locationOf(table_); }
  Diagnostics& diags() { return diags_; }

  // Adds "expected <what>, got <type>" for `value` at `path`.
  static void wrongType(Diagnostics& diags, const TomlValue& value, const std::string& path,
                        std::string_view what);

 private:
  const TomlValue& table_;
  std::string path_;
  Diagnostics& diags_;
  std::vector<std::string> known_;
};

}  // namespace sh::config
