#include "host/model/pod_assign.h"

#include <boost/json.hpp>

namespace sh::model {

std::shared_ptr<const Pod> assign_to_node(const Pod& pod, std::string_view node) {
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(pod.json(), ec);
  if (ec || !doc.is_object()) {
    return nullptr;
  }
  boost::json::object& obj = doc.get_object();
  boost::json::value* spec = obj.if_contains("spec");
  if (spec == nullptr || !spec->is_object()) {
    obj["spec"] = boost::json::object();
    spec = obj.if_contains("spec");
  }
  spec->get_object()["nodeName"] = boost::json::string(node);
  std::string error;
  return parse_pod(doc, error);
}

}  // namespace sh::model
