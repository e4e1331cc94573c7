// Fluent builders of Kubernetes Pod and Node JSON for tests, modelled on kube-scheduler's
// pkg/scheduler/testing/wrappers.go:
//
//   auto pod = makePod().name("p").inNamespace("ns").uid("u").req({{"cpu", "1"}}).obj();
//   auto node = MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"memory", "32Gi"}}).Obj();
//
// Json() gives the manifest, Obj() the parsed object (it throws std::runtime_error when the
// manifest does not parse, which only a test can cause). Header-only.
#ifndef SCHEDHOST_HOST_MODEL_TESTING_WRAPPERS_H
#define SCHEDHOST_HOST_MODEL_TESTING_WRAPPERS_H

#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/model/node.h"
#include "host/model/pod.h"

namespace sh::model::testing {

using ResourceMap = std::vector<std::pair<std::string, std::string>>;
using StringMap = std::vector<std::pair<std::string, std::string>>;

inline constexpr char kPauseImage[] = "registry.k8s.io/pause:3.10";

namespace detail {

// o[key], inserted as null when missing. Unlike object::operator[], which in Boost 1.81
// reserves room (moving every member) even when the key exists, a hit does not touch `o`.
inline boost::json::value& member(boost::json::object& o, std::string_view key) {
  if (boost::json::value* v = o.if_contains(key)) {
    return *v;
  }
  return o.emplace(key, nullptr).first->value();
}

// o[key] as an object, created when missing.
inline boost::json::object& obj(boost::json::object& o, std::string_view key) {
  boost::json::value& v = member(o, key);
  if (!v.is_object()) {
    v = boost::json::object();
  }
  return v.as_object();
}

// o[key] as an array, created when missing.
inline boost::json::array& arr(boost::json::object& o, std::string_view key) {
  boost::json::value& v = member(o, key);
  if (!v.is_array()) {
    v = boost::json::array();
  }
  return v.as_array();
}

inline boost::json::object toObject(const std::vector<std::pair<std::string, std::string>>& m) {
  boost::json::object out;
  for (const auto& [k, v] : m) {
    out[k] = v;
  }
  return out;
}

inline boost::json::array toArray(const std::vector<std::string>& values) {
  boost::json::array out;
  for (const auto& v : values) {
    out.emplace_back(v);
  }
  return out;
}

inline boost::json::object requirement(std::string_view key, std::string_view op,
                                       const std::vector<std::string>& values) {
  boost::json::object r;
  r["key"] = key;
  r["operator"] = op;
  if (!values.empty()) {
    r["values"] = toArray(values);
  }
  return r;
}

}  // namespace detail

// Where a pod (anti-)affinity term goes.
enum class AffinityKind { kRequired, kPreferred };

class PodWrapper {
 public:
  PodWrapper() { detail::obj(json_, "metadata"); }

  PodWrapper& name(std::string_view s) { return meta("name", s); }
  PodWrapper& inNamespace(std::string_view s) { return meta("namespace", s); }
  PodWrapper& uid(std::string_view s) { return meta("uid", s); }
  PodWrapper& creationTimestamp(std::string_view rfc3339) {
    return meta("creationTimestamp", rfc3339);
  }
  PodWrapper& terminating(std::string_view rfc3339 = "2024-01-01T00:00:00Z") {
    return meta("deletionTimestamp", rfc3339);
  }
  PodWrapper& label(std::string_view k, std::string_view v) {
    detail::obj(detail::obj(json_, "metadata"), "labels")[k] = v;
    return *this;
  }
  PodWrapper& labels(const StringMap& labels) {
    for (const auto& [k, v] : labels) {
      label(k, v);
    }
    return *this;
  }
  PodWrapper& ownerReference(std::string_view name, std::string_view kind,
                             std::string_view apiVersion = "apps/v1", bool controller = true) {
    boost::json::object r;
    r["apiVersion"] = apiVersion;
    r["kind"] = kind;
    r["name"] = name;
    r["uid"] = std::string(name) + "-uid";
    r["controller"] = controller;
    detail::arr(detail::obj(json_, "metadata"), "ownerReferences").push_back(std::move(r));
    return *this;
  }

  PodWrapper& node(std::string_view s) { return specField("nodeName", s); }
  PodWrapper& schedulerName(std::string_view s) { return specField("schedulerName", s); }
  PodWrapper& priority(int32_t p) {
    spec()["priority"] = p;
    return *this;
  }
  PodWrapper& priorityClassName(std::string_view s) { return specField("priorityClassName", s); }
  PodWrapper& preemptionPolicy(std::string_view s) { return specField("preemptionPolicy", s); }
  PodWrapper& hostNetwork() {
    spec()["hostNetwork"] = true;
    return *this;
  }

  // A container (named con<N>, pause image) with these requests.
  PodWrapper& req(const ResourceMap& requests) { return addContainer(requests, {}); }
  // A container with these limits only (the API server copies them into requests).
  PodWrapper& lim(const ResourceMap& limits) { return addContainer({}, limits); }
  // A container with both.
  PodWrapper& reqLim(const ResourceMap& requests, const ResourceMap& limits) {
    return addContainer(requests, limits);
  }
  // An init container with these requests.
  PodWrapper& initReq(const ResourceMap& requests) {
    return addInitContainer(requests, std::nullopt);
  }
  // A restartable init container (restartPolicy: Always) with these requests.
  PodWrapper& sidecarReq(const ResourceMap& requests) {
    return addInitContainer(requests, "Always");
  }
  PodWrapper& overhead(const ResourceMap& overhead) {
    spec()["overhead"] = detail::toObject(overhead);
    return *this;
  }
  // Pod-level spec.resources.requests and .limits.
  PodWrapper& podRequests(const ResourceMap& requests) {
    detail::obj(spec(), "resources")["requests"] = detail::toObject(requests);
    return *this;
  }
  PodWrapper& podLimits(const ResourceMap& limits) {
    detail::obj(spec(), "resources")["limits"] = detail::toObject(limits);
    return *this;
  }
  // A container with this image.
  PodWrapper& container(std::string_view image) {
    addContainer({}, {});
    lastContainer()["image"] = image;
    return *this;
  }
  // Sets the image of the last container (adding one when there is none).
  PodWrapper& image(std::string_view image) {
    lastContainer()["image"] = image;
    return *this;
  }
  PodWrapper& initContainerImage(std::string_view image) {
    addInitContainer({}, std::nullopt);
    detail::arr(spec(), "initContainers").back().as_object()["image"] = image;
    return *this;
  }
  PodWrapper& imageVolume(std::string_view reference) {
    boost::json::object vol;
    vol["name"] = "vol" + std::to_string(detail::arr(spec(), "volumes").size());
    detail::obj(vol, "image")["reference"] = reference;
    detail::arr(spec(), "volumes").push_back(std::move(vol));
    return *this;
  }
  // A persistentVolumeClaim volume named after the claim (upstream's PodWrapper.PVC).
  PodWrapper& pvc(std::string_view claim) {
    boost::json::object vol;
    vol["name"] = claim;
    detail::obj(vol, "persistentVolumeClaim")["claimName"] = claim;
    detail::arr(spec(), "volumes").push_back(std::move(vol));
    return *this;
  }
  // A generic ephemeral volume: its claim is <pod name>-<volume>.
  PodWrapper& ephemeralVolume(std::string_view volume) {
    boost::json::object vol;
    vol["name"] = volume;
    detail::obj(detail::obj(vol, "ephemeral"), "volumeClaimTemplate");
    detail::arr(spec(), "volumes").push_back(std::move(vol));
    return *this;
  }
  // A host port on the last container (adding one when there is none).
  PodWrapper& hostPort(int32_t port, std::string_view protocol = "TCP",
                       std::string_view hostIp = "") {
    boost::json::object p;
    p["containerPort"] = port;
    p["hostPort"] = port;
    p["protocol"] = protocol;
    if (!hostIp.empty()) {
      p["hostIP"] = hostIp;
    }
    detail::arr(lastContainer(), "ports").push_back(std::move(p));
    return *this;
  }

  PodWrapper& toleration(std::string_view key, std::string_view op, std::string_view value,
                         std::string_view effect, std::optional<int64_t> seconds = std::nullopt) {
    boost::json::object t;
    t["key"] = key;
    t["operator"] = op;
    t["value"] = value;
    t["effect"] = effect;
    if (seconds) {
      t["tolerationSeconds"] = *seconds;
    }
    detail::arr(spec(), "tolerations").push_back(std::move(t));
    return *this;
  }
  PodWrapper& nodeSelector(const StringMap& selector) {
    spec()["nodeSelector"] = detail::toObject(selector);
    return *this;
  }
  // Adds a required node-affinity term `key In values`.
  PodWrapper& nodeAffinityIn(std::string_view key, const std::vector<std::string>& values) {
    return requiredNodeTerm(detail::requirement(key, "In", values));
  }
  PodWrapper& nodeAffinityNotIn(std::string_view key, const std::vector<std::string>& values) {
    return requiredNodeTerm(detail::requirement(key, "NotIn", values));
  }
  // Adds a preferred node-affinity term `key In values` with this weight.
  PodWrapper& preferredNodeAffinity(int32_t weight, std::string_view key,
                                    const std::vector<std::string>& values) {
    boost::json::object term;
    detail::arr(term, "matchExpressions").push_back(detail::requirement(key, "In", values));
    boost::json::object pref;
    pref["weight"] = weight;
    pref["preference"] = std::move(term);
    detail::arr(nodeAffinity(), "preferredDuringSchedulingIgnoredDuringExecution")
        .push_back(std::move(pref));
    return *this;
  }

  // Pod (anti-)affinity terms whose selector is `label_key Exists` or `label_key In values`.
  PodWrapper& podAffinityExists(std::string_view labelKey, std::string_view topologyKey,
                                AffinityKind kind) {
    return podAffinityTerm("podAffinity", labelKey, "Exists", {}, topologyKey, kind);
  }
  PodWrapper& podAffinityIn(std::string_view labelKey, std::string_view topologyKey,
                            const std::vector<std::string>& values, AffinityKind kind) {
    return podAffinityTerm("podAffinity", labelKey, "In", values, topologyKey, kind);
  }
  PodWrapper& podAntiAffinityExists(std::string_view labelKey, std::string_view topologyKey,
                                    AffinityKind kind) {
    return podAffinityTerm("podAntiAffinity", labelKey, "Exists", {}, topologyKey, kind);
  }
  PodWrapper& podAntiAffinityIn(std::string_view labelKey, std::string_view topologyKey,
                                const std::vector<std::string>& values, AffinityKind kind) {
    return podAffinityTerm("podAntiAffinity", labelKey, "In", values, topologyKey, kind);
  }

  // A topology spread constraint selecting pods with `selector` labels.
  PodWrapper& spreadConstraint(int32_t maxSkew, std::string_view topologyKey,
                               std::string_view whenUnsatisfiable, const StringMap& selector,
                               std::optional<int32_t> minDomains = std::nullopt) {
    boost::json::object c;
    c["maxSkew"] = maxSkew;
    c["topologyKey"] = topologyKey;
    c["whenUnsatisfiable"] = whenUnsatisfiable;
    detail::obj(c, "labelSelector")["matchLabels"] = detail::toObject(selector);
    if (minDomains) {
      c["minDomains"] = *minDomains;
    }
    detail::arr(spec(), "topologySpreadConstraints").push_back(std::move(c));
    return *this;
  }
  PodWrapper& schedulingGates(const std::vector<std::string>& gates) {
    boost::json::array out;
    for (const auto& g : gates) {
      boost::json::object o;
      o["name"] = g;
      out.push_back(std::move(o));
    }
    spec()["schedulingGates"] = std::move(out);
    return *this;
  }

  PodWrapper& nominatedNodeName(std::string_view s) { return statusField("nominatedNodeName", s); }
  PodWrapper& phase(std::string_view s) { return statusField("phase", s); }
  PodWrapper& startTime(std::string_view rfc3339) { return statusField("startTime", rfc3339); }

  // Sets an arbitrary field by path, for cases the builder does not cover.
  PodWrapper& set(std::initializer_list<std::string_view> path, boost::json::value v) {
    if (path.size() == 0) {
      return *this;
    }
    boost::json::object* o = &json_;
    auto it = path.begin();
    for (std::size_t i = 0; i + 1 < path.size(); ++i, ++it) {
      o = &detail::obj(*o, *it);
    }
    detail::member(*o, *it) = std::move(v);
    return *this;
  }

  boost::json::value parseJson() const { return json_; }
  std::shared_ptr<const Pod> obj() const {
    std::string error;
    auto pod = parsePod(boost::json::value(json_), error);
    if (!pod) {
      throw std::runtime_error("MakePod: " + error);
    }
    return pod;
  }

 private:
  PodWrapper& meta(std::string_view key, std::string_view value) {
    detail::obj(json_, "metadata")[key] = value;
    return *this;
  }
  boost::json::object& spec() { return detail::obj(json_, "spec"); }
  PodWrapper& specField(std::string_view key, std::string_view value) {
    spec()[key] = value;
    return *this;
  }
  PodWrapper& statusField(std::string_view key, std::string_view value) {
    detail::obj(json_, "status")[key] = value;
    return *this;
  }
  PodWrapper& addContainer(const ResourceMap& requests, const ResourceMap& limits) {
    boost::json::array& containers = detail::arr(spec(), "containers");
    boost::json::object c;
    c["name"] = "con" + std::to_string(containers.size());
    c["image"] = kPauseImage;
    if (!requests.empty()) {
      detail::obj(c, "resources")["requests"] = detail::toObject(requests);
    }
    if (!limits.empty()) {
      detail::obj(c, "resources")["limits"] = detail::toObject(limits);
    }
    containers.push_back(std::move(c));
    return *this;
  }
  PodWrapper& addInitContainer(const ResourceMap& requests,
                               std::optional<std::string_view> restartPolicy) {
    boost::json::array& inits = detail::arr(spec(), "initContainers");
    boost::json::object c;
    c["name"] = "init" + std::to_string(inits.size());
    c["image"] = kPauseImage;
    if (!requests.empty()) {
      detail::obj(c, "resources")["requests"] = detail::toObject(requests);
    }
    if (restartPolicy) {
      c["restartPolicy"] = *restartPolicy;
    }
    inits.push_back(std::move(c));
    return *this;
  }
  boost::json::object& lastContainer() {
    if (detail::arr(spec(), "containers").empty()) {
      addContainer({}, {});
    }
    return detail::arr(spec(), "containers").back().as_object();
  }
  boost::json::object& nodeAffinity() {
    return detail::obj(detail::obj(spec(), "affinity"), "nodeAffinity");
  }
  PodWrapper& requiredNodeTerm(boost::json::object req) {
    boost::json::object& required =
        detail::obj(nodeAffinity(), "requiredDuringSchedulingIgnoredDuringExecution");
    boost::json::object term;
    detail::arr(term, "matchExpressions").push_back(std::move(req));
    detail::arr(required, "nodeSelectorTerms").push_back(std::move(term));
    return *this;
  }
  PodWrapper& podAffinityTerm(std::string_view which, std::string_view labelKey,
                              std::string_view op, const std::vector<std::string>& values,
                              std::string_view topologyKey, AffinityKind kind) {
    boost::json::object term;
    detail::arr(detail::obj(term, "labelSelector"), "matchExpressions")
        .push_back(detail::requirement(labelKey, op, values));
    term["topologyKey"] = topologyKey;
    boost::json::object& aff = detail::obj(detail::obj(spec(), "affinity"), which);
    if (kind == AffinityKind::kRequired) {
      detail::arr(aff, "requiredDuringSchedulingIgnoredDuringExecution").push_back(std::move(term));
    } else {
      boost::json::object weighted;
      weighted["weight"] = 1;
      weighted["podAffinityTerm"] = std::move(term);
      detail::arr(aff, "preferredDuringSchedulingIgnoredDuringExecution")
          .push_back(std::move(weighted));
    }
    return *this;
  }

  boost::json::object json_;
};

inline PodWrapper makePod() { return PodWrapper(); }

class NodeWrapper {
 public:
  // Like upstream MakeNode(): capacity = allocatable = {pods: 32}.
  NodeWrapper() {
    detail::obj(json_, "metadata");
    capacity({});
  }

  NodeWrapper& name(std::string_view s) {
    detail::obj(json_, "metadata")["name"] = s;
    return *this;
  }
  NodeWrapper& uid(std::string_view s) {
    detail::obj(json_, "metadata")["uid"] = s;
    return *this;
  }
  NodeWrapper& label(std::string_view k, std::string_view v) {
    detail::obj(detail::obj(json_, "metadata"), "labels")[k] = v;
    return *this;
  }
  // Sets capacity and allocatable; "pods" defaults to 32 unless given.
  NodeWrapper& capacity(const ResourceMap& resources) {
    boost::json::object res;
    res["pods"] = "32";
    for (const auto& [k, v] : resources) {
      res[k] = v;
    }
    detail::obj(json_, "status")["capacity"] = res;
    detail::obj(json_, "status")["allocatable"] = std::move(res);
    return *this;
  }
  // Sets allocatable only.
  NodeWrapper& allocatable(const ResourceMap& resources) {
    detail::obj(json_, "status")["allocatable"] = detail::toObject(resources);
    return *this;
  }
  NodeWrapper& taint(std::string_view key, std::string_view value, std::string_view effect) {
    boost::json::object t;
    t["key"] = key;
    t["value"] = value;
    t["effect"] = effect;
    detail::arr(detail::obj(json_, "spec"), "taints").push_back(std::move(t));
    return *this;
  }
  NodeWrapper& unschedulable(bool u) {
    detail::obj(json_, "spec")["unschedulable"] = u;
    return *this;
  }
  // One image entry per element, each with a single name.
  NodeWrapper& images(const std::vector<std::pair<std::string, int64_t>>& images) {
    for (const auto& [name, size] : images) {
      image({name}, size);
    }
    return *this;
  }
  // One image entry with several names.
  NodeWrapper& image(const std::vector<std::string>& names, int64_t sizeBytes) {
    boost::json::object img;
    img["names"] = detail::toArray(names);
    img["sizeBytes"] = sizeBytes;
    detail::arr(detail::obj(json_, "status"), "images").push_back(std::move(img));
    return *this;
  }

  boost::json::value parseJson() const { return json_; }
  std::shared_ptr<const Node> obj() const {
    std::string error;
    auto node = parseNode(boost::json::value(json_), error);
    if (!node) {
      throw std::runtime_error("MakeNode: " + error);
    }
    return node;
  }

 private:
  boost::json::object json_;
};

inline NodeWrapper makeNode() { return NodeWrapper(); }

}  // namespace sh::model::testing

#endif  // SCHEDHOST_HOST_MODEL_TESTING_WRAPPERS_H
