#include "host/model/node.h"

#include <boost/json/error.hpp>
#include <boost/json/parse.hpp>

#include "host/common/limits.h"

namespace sh::model {

std::shared_ptr<const Node> parseNodeJson(std::string_view jsonText, std::string& error) {
  boost::system::error_code ec;
  boost::json::parse_options options;
  options.max_depth = limits::kMaxJsonDepth;
  boost::json::value v = boost::json::parse(
      boost::json::string_view(jsonText.data(), jsonText.size()), ec, {}, options);
  if (ec) {
    error = ec == boost::json::error::too_deep
                ? "invalid JSON: nested deeper than the limit of " +
                      std::to_string(limits::kMaxJsonDepth) + " levels"
                : "invalid JSON: " + ec.message();
    return nullptr;
  }
  return parseNode(v, error);
}

}  // namespace sh::model
