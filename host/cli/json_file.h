// Reading JSON files with errors that say where: "FILE:LINE:COLUMN: reason".
#pragma once

#include <optional>
#include <string>

#include <boost/json/value.hpp>

namespace sh::cli {

// Reads and parses `path` ("-" reads standard input). On failure returns nullopt and sets
// `error` to a message naming the file, the position and the cause.
std::optional<boost::json::value> readJsonFile(const std::string& path, std::string& error);

// Parses `text`; `name` is used in messages.
std::optional<boost::json::value> parseJsonText(const std::string& text, const std::string& name,
                                                std::string& error);

}  // namespace sh::cli
