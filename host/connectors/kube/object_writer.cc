#include "host/connectors/kube/object_writer.h"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "host/connectors/kube/resources.h"
#include "host/connectors/object_file.h"

namespace sh::kube {

namespace {

// metadata.<key> of a JSON body; "" when absent or the body is not JSON.
std::string metadataField(const boost::json::value& body, std::string_view key) {
  const boost::json::object* o = body.if_object();
  const boost::json::value* meta = o != nullptr ? o->if_contains("metadata") : nullptr;
  const boost::json::value* v =
      meta != nullptr && meta->is_object() ? meta->as_object().if_contains(key) : nullptr;
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

Method methodOf(std::string_view name) {
  if (name == "POST") {
    return Method::kPost;
  }
  if (name == "PUT") {
    return Method::kPut;
  }
  if (name == "PATCH") {
    return Method::kPatch;
  }
  if (name == "DELETE") {
    return Method::kDelete;
  }
  return Method::kGet;
}

}  // namespace

std::optional<Request> objectWriteRequest(const connectors::ObjectKind& kind,
                                          const connectors::ObjectWrite& write,
                                          std::string& error) {
  std::string ns = write.ns;
  std::string name = write.name;
  // The write as messages name it: its object, not its body.
  auto fail = [&](std::string_view why) {
    connectors::ObjectWrite named;
    named.verb = write.verb;
    named.patchType = write.patchType;
    named.ns = ns;
    named.name = name;
    error = named.describe(kind) + ": " + std::string(why);
    return std::nullopt;
  };
  const std::string_view method = write.method();
  if (method.empty()) {
    return fail("no such verb");
  }
  if (write.verb == SH_VERB_PATCH && write.patchType == SH_PATCH_NONE) {
    return fail("a patch without a patch type");
  }
  const bool patch = methodOf(method) == Method::kPatch;
  if ((ns.empty() || name.empty()) && !patch && write.verb != SH_VERB_DELETE) {
    boost::system::error_code ec;
    const boost::json::value body =
        boost::json::parse(write.body, ec, {}, connectors::jsonParseOptions());
    if (!ec) {
      ns = ns.empty() ? metadataField(body, "namespace") : ns;
      name = name.empty() ? metadataField(body, "name") : name;
    }
  }
  if (!kind.namespaced) {
    ns.clear();
  } else if (ns.empty()) {
    return fail("no namespace for a namespaced kind");
  }
  // A create may leave the name to metadata.generateName.
  if (name.empty() && write.verb != SH_VERB_CREATE) {
    return fail("no name");
  }
  Request request;
  request.method = methodOf(method);
  request.path = kind.path(ns.empty() ? std::string() : escapeComponent(ns));
  if (write.verb != SH_VERB_CREATE) {
    request.path += "/" + escapeComponent(name);
  }
  if (write.status()) {
    request.path += "/status";
  }
  request.body = write.body;
  request.contentType = patch ? write.contentType() : "application/json";
  return request;
}

std::string apiMessage(const Response& response) {
  if (response.status != 0 && !response.body.empty()) {
    boost::system::error_code ec;
    const boost::json::value body = boost::json::parse(response.body, ec);
    const boost::json::object* o = !ec ? body.if_object() : nullptr;
    const boost::json::value* kind = o != nullptr ? o->if_contains("kind") : nullptr;
    const boost::json::value* message = o != nullptr ? o->if_contains("message") : nullptr;
    if (kind != nullptr && kind->is_string() && kind->as_string() == "Status" &&
        message != nullptr && message->is_string() && !message->as_string().empty()) {
      return std::string(message->as_string());
    }
  }
  return describeFailure(response);
}

}  // namespace sh::kube
