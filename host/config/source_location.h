// Where a configuration value was written.
#pragma once

#include <string>

namespace sh::config {

// The "file" of what no file wrote: the default profile when no configuration is given.
inline constexpr const char* kBuiltInDefaults = "built-in defaults";

// A position in a configuration file. line and column are 1-based; 0 means unknown (a value
// that came from JSON, a default, or a whole file).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  bool hasPosition() const { return line > 0; }
  // "file:line:column", or just "file" when the position is unknown.
  std::string str() const;
};

}  // namespace sh::config
