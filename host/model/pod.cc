#include "host/model/pod.h"

#include <boost/json.hpp>

namespace sh::model {

const std::string& Pod::json() const {
  if (base_ != nullptr) {
    std::call_once(jsonOnce_, [this] {
      boost::system::error_code ec;
      boost::json::value doc = boost::json::parse(base_->json(), ec);
      if (ec || !doc.is_object()) {
        json_ = base_->json();
        return;
      }
      boost::json::object& obj = doc.get_object();
      boost::json::value* spec = obj.if_contains("spec");
      if (spec == nullptr || !spec->is_object()) {
        obj["spec"] = boost::json::object();
        spec = obj.if_contains("spec");
      }
      if (overridesNodeName_) {
        spec->get_object()["nodeName"] = boost::json::string(nodeName_);
      }
      if (overridesNominated_) {
        boost::json::value* status = obj.if_contains("status");
        if (status == nullptr || !status->is_object()) {
          obj["status"] = boost::json::object();
          status = obj.if_contains("status");
        }
        if (nominatedNodeName_.empty()) {
          status->get_object().erase("nominatedNodeName");
        } else {
          status->get_object()["nominatedNodeName"] = boost::json::string(nominatedNodeName_);
        }
      }
      if (manifestEdit_) {
        manifestEdit_(obj);
      }
      json_ = boost::json::serialize(doc);
    });
  }
  return json_;
}

std::shared_ptr<const Pod> parsePodJson(std::string_view jsonText, std::string& error) {
  boost::system::error_code ec;
  boost::json::value v =
      boost::json::parse(boost::json::string_view(jsonText.data(), jsonText.size()), ec);
  if (ec) {
    error = "invalid JSON: " + ec.message();
    return nullptr;
  }
  return parsePod(v, error);
}

}  // namespace sh::model
