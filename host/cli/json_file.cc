#include "host/cli/json_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <boost/json.hpp>

namespace sh::cli {

std::optional<boost::json::value> parseJsonText(const std::string& text, const std::string& name,
                                                std::string& error) {
  boost::json::parse_options opts;
  opts.max_depth = 256;
  boost::json::stream_parser parser({}, opts);
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
    error = name + ":" + std::to_string(line) + ":" + std::to_string(column) +
            ": invalid JSON: " + ec.message();
    return std::nullopt;
  }
  return parser.release();
}

std::optional<boost::json::value> readJsonFile(const std::string& path, std::string& error) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      error = "cannot read [" + path + "]: " + std::strerror(errno);
      return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  return parseJsonText(text, path == "-" ? "<stdin>" : path, error);
}

}  // namespace sh::cli
