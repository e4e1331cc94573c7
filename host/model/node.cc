#include "host/model/node.h"

#include <boost/json/parse.hpp>

namespace sh::model {

std::shared_ptr<const Node> parseNodeJson(std::string_view jsonText, std::string& error) {
  boost::system::error_code ec;
  boost::json::value v =
      boost::json::parse(boost::json::string_view(jsonText.data(), jsonText.size()), ec);
  if (ec) {
    error = "invalid JSON: " + ec.message();
    return nullptr;
  }
  return parseNode(v, error);
}

}  // namespace sh::model
