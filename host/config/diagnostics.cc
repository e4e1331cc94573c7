#include "host/config/diagnostics.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace sh::config {

std::string SourceLocation::str() const {
  std::string out = file.empty() ? std::string("<unknown>") : file;
  if (hasPosition()) {
    out += ':';
    out += std::to_string(line);
    out += ':';
    out += std::to_string(column > 0 ? column : 1);
  }
  return out;
}

std::string Diagnostic::str() const {
  std::string out = where.str();
  out += ": ";
  if (!key.empty()) {
    out += key;
    out += ": ";
  }
  if (severity == Severity::kWarning) {
    out += "warning: ";
  }
  out += message;
  return out;
}

void Diagnostics::error(SourceLocation where, std::string key, std::string message) {
  add(Diagnostic{std::move(where), std::move(key), std::move(message), Severity::kError});
}

void Diagnostics::warning(SourceLocation where, std::string key, std::string message) {
  add(Diagnostic{std::move(where), std::move(key), std::move(message), Severity::kWarning});
}

void Diagnostics::add(Diagnostic diagnostic) {
  if (diagnostic.severity == Severity::kError) {
    ++errorCount_;
  }
  items_.push_back(std::move(diagnostic));
}

std::vector<Diagnostic> Diagnostics::sorted() const {
  std::vector<std::string> files;
  const auto fileRank = [&](const std::string& file) {
    return static_cast<std::size_t>(std::find(files.begin(), files.end(), file) - files.begin());
  };
  for (const Diagnostic& d : items_) {
    if (fileRank(d.where.file) == files.size()) {
      files.push_back(d.where.file);
    }
  }
  std::vector<Diagnostic> out = items_;
  std::stable_sort(out.begin(), out.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    return std::make_tuple(fileRank(a.where.file), a.where.line, a.where.column) <
           std::make_tuple(fileRank(b.where.file), b.where.line, b.where.column);
  });
  return out;
}

std::string Diagnostics::str() const {
  std::string out;
  for (const Diagnostic& d : sorted()) {
    out += d.str();
    out += '\n';
  }
  return out;
}

}  // namespace sh::config
