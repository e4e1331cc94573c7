#include "host/cli/json_file.h"

#include <boost/json.hpp>

#include "host/connectors/object_file.h"

namespace sh::cli {

std::optional<boost::json::value> parseJsonText(const std::string& text, const std::string& name,
                                                std::string& error) {
  boost::json::stream_parser parser({}, connectors::jsonParseOptions());
  boost::system::error_code ec;
  std::size_t consumed = parser.write_some(text.data(), text.size(), ec);
  if (!ec) {
    parser.finish(ec);
    consumed = text.size();
  }
  if (ec) {
    int line = 1;
    int column = 1;
    for (std::size_t i = 0; i < consumed && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error = name + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
            connectors::jsonErrorText(ec);
    return std::nullopt;
  }
  return parser.release();
}

std::optional<boost::json::value> readJsonFile(const std::string& path, std::string& error) {
  std::optional<std::string> text = connectors::readFileText(path, error);
  if (!text) {
    return std::nullopt;
  }
  return parseJsonText(*text, connectors::displayName(path), error);
}

}  // namespace sh::cli
