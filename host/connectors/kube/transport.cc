#include "host/connectors/kube/transport.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "host/connectors/kube/proto/transcode.h"
#include "host/connectors/object_file.h"

namespace sh::kube {

std::string_view methodName(Method method) {
  switch (method) {
    case Method::kGet:
      return "GET";
    case Method::kPost:
      return "POST";
    case Method::kPut:
      return "PUT";
    case Method::kPatch:
      return "PATCH";
    case Method::kDelete:
      return "DELETE";
  }
  return "GET";
}

namespace {

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 303:
      return "See Other";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "";
  }
}

}  // namespace

bool parseBody(const Response& response, boost::json::value& out, std::string& error,
               const boost::json::storage_ptr& storage) {
  if (proto::isProtobuf(response.contentType)) {
    return proto::decodeObject(response.body, out, error, storage);
  }
  boost::system::error_code ec;
  out = boost::json::parse(response.body, ec, storage, connectors::jsonParseOptions());
  if (ec) {
    error = "the answer is not JSON (" + ec.message() + ")";
    return false;
  }
  return true;
}

std::string describeFailure(const Response& response) {
  if (response.status == 0) {
    return response.error.empty() ? std::string("no response") : response.error;
  }
  std::string out = std::to_string(response.status);
  if (std::string_view phrase = reasonPhrase(response.status); !phrase.empty()) {
    out += ' ';
    out += phrase;
  }
  if (response.status >= 300 && response.status < 400) {
    return out + ": redirected to " +
           (response.location.empty() ? std::string("nowhere (no Location header)")
                                      : response.location.substr(0, 512)) +
           " (not followed: the API server's address in the configuration is the one used)";
  }
  std::string detail;
  boost::json::value body;
  std::string error;
  if (parseBody(response, body, error) && body.is_object()) {
    if (const boost::json::value* m = body.as_object().if_contains("message");
        m != nullptr && m->is_string()) {
      detail = std::string(m->as_string());
    }
  }
  if (detail.empty()) {
    detail = proto::isProtobuf(response.contentType)
                 ? "a protobuf body that is not a Status (" + error + ")"
                 : response.body.substr(0, 200);
  }
  while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) {
    detail.pop_back();
  }
  if (!detail.empty()) {
    out += ": " + detail;
  }
  return out;
}

}  // namespace sh::kube
