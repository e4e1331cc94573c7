// The requests that make the writes plugins ask for on objects of the kinds they declared
// (connectors::ObjectWrite), as client-go's dynamic client sends them:
//
//   CREATE          POST    <collection>                application/json
//   UPDATE          PUT     <collection>/<name>         application/json
//   PATCH           PATCH   <collection>/<name>         the patch type's media type
//   UPDATE_STATUS   PUT     <collection>/<name>/status  application/json, or with a patch type:
//                   PATCH   <collection>/<name>/status  the patch type's media type
//   DELETE          DELETE  <collection>/<name>         the body, when given, as DeleteOptions
//
// <collection> is the kind's path, in the object's namespace for a namespaced kind. The
// namespace and the name are the write's, else the body's metadata (an object names itself).
// KubeCluster::writeObject sends them with the binding cycle's client, retries and stop.
#pragma once

#include <optional>
#include <string>

#include "host/connectors/kube/transport.h"
#include "host/connectors/object_store.h"
#include "host/connectors/object_write.h"

namespace sh::kube {

// The request for `write`; nullopt with `error` set when it cannot be made (no name for a
// verb that needs one, no namespace for a namespaced kind, a patch without a patch type).
std::optional<Request> objectWriteRequest(const connectors::ObjectKind& kind,
                                          const connectors::ObjectWrite& write, std::string& error);

// What a failed write tells the plugin: the API's own message when the answer is a Status
// with one (`podgroups.scheduling.x-k8s.io "pg-1" not found`), else describeFailure().
std::string apiMessage(const Response& response);

}  // namespace sh::kube
