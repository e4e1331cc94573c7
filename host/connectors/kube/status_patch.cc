#include "host/connectors/kube/status_patch.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "host/connectors/kube/json_members.h"

namespace sh::kube {

namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

// The stored manifest, parsed (a pod's json() is what it was parsed from).
object manifestOf(const model::Pod& pod) {
  boost::system::error_code ec;
  value v = boost::json::parse(pod.json(), ec);
  return !ec && v.is_object() ? std::move(v.as_object()) : object();
}

const object* condition(const object& manifest, std::string_view type) {
  const object* status = objectAt(manifest, "status");
  const value* conditions = status != nullptr ? status->if_contains("conditions") : nullptr;
  if (conditions == nullptr || !conditions->is_array()) {
    return nullptr;
  }
  for (const value& c : conditions->as_array()) {
    if (c.is_object() && stringAt(c.as_object(), "type") == type) {
      return &c.as_object();
    }
  }
  return nullptr;
}

// Sets observedGeneration from metadata.generation, as upstream's condition helpers do.
void observeGeneration(const object& manifest, object& cond) {
  const object* meta = objectAt(manifest, "metadata");
  const value* generation = meta != nullptr ? meta->if_contains("generation") : nullptr;
  if (generation != nullptr && generation->is_int64()) {
    cond["observedGeneration"] = generation->as_int64();
  }
}

// A condition as UpdatePodCondition writes it: lastTransitionTime moves only when the status
// changes. False when `existing` already says the same.
bool setCondition(const object* existing, object& cond, std::string_view status,
                  std::string_view now) {
  if (existing != nullptr && stringAt(*existing, "status") == status &&
      stringAt(*existing, "reason") == stringAt(cond, "reason") &&
      stringAt(*existing, "message") == stringAt(cond, "message")) {
    return false;
  }
  cond["status"] = status;
  const bool sameStatus = existing != nullptr && stringAt(*existing, "status") == status;
  std::string_view since = sameStatus ? stringAt(*existing, "lastTransitionTime") : now;
  cond["lastTransitionTime"] = since.empty() ? now : since;
  return true;
}

std::string statusPatch(object status) {
  object patch;
  patch["status"] = std::move(status);
  return boost::json::serialize(patch);
}

}  // namespace

std::string bindingBody(const model::Pod& pod, std::string_view nodeName) {
  object meta;
  meta["name"] = pod.name();
  meta["namespace"] = pod.namespaceName();
  if (!pod.uid().empty()) {
    meta["uid"] = pod.uid();
  }
  object target;
  target["apiVersion"] = "v1";
  target["kind"] = "Node";
  target["name"] = nodeName;
  object body;
  body["apiVersion"] = "v1";
  body["kind"] = "Binding";
  body["metadata"] = std::move(meta);
  body["target"] = std::move(target);
  return boost::json::serialize(body);
}

std::optional<std::string> schedulingFailurePatch(const model::Pod& stored, std::string_view reason,
                                                  std::string_view message,
                                                  const std::optional<std::string>& nominated,
                                                  std::string_view now) {
  const object manifest = manifestOf(stored);
  object status;
  object cond;
  cond["type"] = "PodScheduled";
  cond["reason"] = reason;
  cond["message"] = message;
  if (setCondition(condition(manifest, "PodScheduled"), cond, "False", now)) {
    cond["lastProbeTime"] = nullptr;
    observeGeneration(manifest, cond);
    array conditions;
    conditions.emplace_back(std::move(cond));
    status["conditions"] = std::move(conditions);
  }
  if (nominated.has_value()) {
    const object* st = objectAt(manifest, "status");
    const std::string_view current = st != nullptr ? stringAt(*st, "nominatedNodeName") : "";
    if (*nominated != current) {
      if (nominated->empty()) {
        status["nominatedNodeName"] = nullptr;
      } else {
        status["nominatedNodeName"] = *nominated;
      }
    }
  }
  if (status.empty()) {
    return std::nullopt;
  }
  return statusPatch(std::move(status));
}

std::optional<std::string> disruptionTargetPatch(const model::Pod& stored, std::string_view message,
                                                 std::string_view now) {
  const object manifest = manifestOf(stored);
  object cond;
  cond["type"] = "DisruptionTarget";
  cond["reason"] = "PreemptionByScheduler";
  cond["message"] = message;
  if (!setCondition(condition(manifest, "DisruptionTarget"), cond, "True", now)) {
    return std::nullopt;
  }
  observeGeneration(manifest, cond);
  array conditions;
  conditions.emplace_back(std::move(cond));
  object status;
  status["conditions"] = std::move(conditions);
  return statusPatch(std::move(status));
}

std::optional<std::string> clearNominationPatch(const model::Pod& stored) {
  const object manifest = manifestOf(stored);
  const object* st = objectAt(manifest, "status");
  if (st == nullptr || stringAt(*st, "nominatedNodeName").empty()) {
    return std::nullopt;
  }
  object status;
  status["nominatedNodeName"] = nullptr;
  return statusPatch(std::move(status));
}

std::string deleteOptionsBody(const model::Pod& pod) {
  object body;
  body["kind"] = "DeleteOptions";
  body["apiVersion"] = "v1";
  if (!pod.uid().empty()) {
    object pre;
    pre["uid"] = pod.uid();
    body["preconditions"] = std::move(pre);
  }
  return boost::json::serialize(body);
}

}  // namespace sh::kube
