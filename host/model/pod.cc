#include "host/model/pod.h"

#include <boost/json/parse.hpp>

namespace sh::model {

std::shared_ptr<const Pod> parse_pod_json(std::string_view json_text, std::string& error) {
  boost::system::error_code ec;
  boost::json::value v =
      boost::json::parse(boost::json::string_view(json_text.data(), json_text.size()), ec);
  if (ec) {
    error = "invalid JSON: " + ec.message();
    return nullptr;
  }
  return parse_pod(v, error);
}

}  // namespace sh::model
