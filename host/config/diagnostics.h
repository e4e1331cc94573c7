// Diagnostics: every problem found while reading configuration, with where it was written.
//
// Parsing and validation never stop at the first problem. Each step adds what it finds to a
// Diagnostics collector and goes on with what it can still make sense of; the caller checks
// has_errors() at the end and prints everything at once, one problem per line:
//
//   FILE:LINE:COLUMN: KEY: MESSAGE
//
// KEY is the dotted path of the offending value (e.g. "plugins.score.enabled[1].weight").
// ":LINE:COLUMN" is left out when the position is unknown, and "KEY: " when there is no key.
// Messages are lowercase and quote the item they talk about: plugin "Foo" does not exist.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "host/config/source_location.h"

namespace sh::config {

enum class Severity { kError, kWarning };

struct Diagnostic {
  SourceLocation where;
  std::string key;
  std::string message;
  Severity severity = Severity::kError;

  // FILE:LINE:COLUMN: KEY: MESSAGE (warnings say "warning: " before the message).
  std::string str() const;
};

class Diagnostics {
 public:
  void error(SourceLocation where, std::string key, std::string message);
  void warning(SourceLocation where, std::string key, std::string message);
  void add(Diagnostic diagnostic);

  bool hasErrors() const { return errorCount_ > 0; }
  std::size_t errorCount() const { return errorCount_; }
  bool empty() const { return items_.empty(); }
  const std::vector<Diagnostic>& items() const { return items_; }

  // Every diagnostic, one per line, each ending in '\n': files in the order they were first
  // reported, and within a file by line and column (problems are found in schema order, not
  // text order). Ties keep the order found.
  std::string str() const;
  // items() in the order str() prints them.
  std::vector<Diagnostic> sorted() const;

 private:
  std::vector<Diagnostic> items_;
  std::size_t errorCount_ = 0;
};

}  // namespace sh::config
