// Fluent builders of Kubernetes Pod and Node JSON for tests, modelled on kube-scheduler's
// pkg/scheduler/testing/wrappers.go:
//
//   auto pod = MakePod().Name("p").Namespace("ns").UID("u").Req({{"cpu", "1"}}).Obj();
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

inline boost::json::object to_object(const std::vector<std::pair<std::string, std::string>>& m) {
  boost::json::object out;
  for (const auto& [k, v] : m) {
    out[k] = v;
  }
  return out;
}

inline boost::json::array to_array(const std::vector<std::string>& values) {
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
    r["values"] = to_array(values);
  }
  return r;
}

}  // namespace detail

// Where a pod (anti-)affinity term goes.
enum class AffinityKind { kRequired, kPreferred };

class PodWrapper {
 public:
  PodWrapper() { detail::obj(json_, "metadata"); }

  PodWrapper& Name(std::string_view s) { return meta("name", s); }
  PodWrapper& Namespace(std::string_view s) { return meta("namespace", s); }
  PodWrapper& UID(std::string_view s) { return meta("uid", s); }
  PodWrapper& CreationTimestamp(std::string_view rfc3339) {
    return meta("creationTimestamp", rfc3339);
  }
  PodWrapper& Terminating(std::string_view rfc3339 = "2024-01-01T00:00:00Z") {
    return meta("deletionTimestamp", rfc3339);
  }
  PodWrapper& Label(std::string_view k, std::string_view v) {
    detail::obj(detail::obj(json_, "metadata"), "labels")[k] = v;
    return *this;
  }
  PodWrapper& Labels(const StringMap& labels) {
    for (const auto& [k, v] : labels) {
      Label(k, v);
    }
    return *this;
  }
  PodWrapper& OwnerReference(std::string_view name, std::string_view kind,
                             std::string_view api_version = "apps/v1", bool controller = true) {
    boost::json::object r;
    r["apiVersion"] = api_version;
    r["kind"] = kind;
    r["name"] = name;
    r["uid"] = std::string(name) + "-uid";
    r["controller"] = controller;
    detail::arr(detail::obj(json_, "metadata"), "ownerReferences").push_back(std::move(r));
    return *this;
  }

  PodWrapper& Node(std::string_view s) { return spec_field("nodeName", s); }
  PodWrapper& SchedulerName(std::string_view s) { return spec_field("schedulerName", s); }
  PodWrapper& Priority(int32_t p) {
    spec()["priority"] = p;
    return *this;
  }
  PodWrapper& PriorityClassName(std::string_view s) { return spec_field("priorityClassName", s); }
  PodWrapper& PreemptionPolicy(std::string_view s) { return spec_field("preemptionPolicy", s); }
  PodWrapper& HostNetwork() {
    spec()["hostNetwork"] = true;
    return *this;
  }

  // A container (named con<N>, pause image) with these requests.
  PodWrapper& Req(const ResourceMap& requests) { return add_container(requests, {}); }
  // A container with these limits only (the API server copies them into requests).
  PodWrapper& Lim(const ResourceMap& limits) { return add_container({}, limits); }
  // A container with both.
  PodWrapper& ReqLim(const ResourceMap& requests, const ResourceMap& limits) {
    return add_container(requests, limits);
  }
  // An init container with these requests.
  PodWrapper& InitReq(const ResourceMap& requests) {
    return add_init_container(requests, std::nullopt);
  }
  // A restartable init container (restartPolicy: Always) with these requests.
  PodWrapper& SidecarReq(const ResourceMap& requests) {
    return add_init_container(requests, "Always");
  }
  PodWrapper& Overhead(const ResourceMap& overhead) {
    spec()["overhead"] = detail::to_object(overhead);
    return *this;
  }
  // Pod-level spec.resources.requests and .limits.
  PodWrapper& PodRequests(const ResourceMap& requests) {
    detail::obj(spec(), "resources")["requests"] = detail::to_object(requests);
    return *this;
  }
  PodWrapper& PodLimits(const ResourceMap& limits) {
    detail::obj(spec(), "resources")["limits"] = detail::to_object(limits);
    return *this;
  }
  // A container with this image.
  PodWrapper& Container(std::string_view image) {
    add_container({}, {});
    last_container()["image"] = image;
    return *this;
  }
  // Sets the image of the last container (adding one when there is none).
  PodWrapper& Image(std::string_view image) {
    last_container()["image"] = image;
    return *this;
  }
  PodWrapper& InitContainerImage(std::string_view image) {
    add_init_container({}, std::nullopt);
    detail::arr(spec(), "initContainers").back().as_object()["image"] = image;
    return *this;
  }
  PodWrapper& ImageVolume(std::string_view reference) {
    boost::json::object vol;
    vol["name"] = "vol" + std::to_string(detail::arr(spec(), "volumes").size());
    detail::obj(vol, "image")["reference"] = reference;
    detail::arr(spec(), "volumes").push_back(std::move(vol));
    return *this;
  }
  // A host port on the last container (adding one when there is none).
  PodWrapper& HostPort(int32_t port, std::string_view protocol = "TCP",
                       std::string_view host_ip = "") {
    boost::json::object p;
    p["containerPort"] = port;
    p["hostPort"] = port;
    p["protocol"] = protocol;
    if (!host_ip.empty()) {
      p["hostIP"] = host_ip;
    }
    detail::arr(last_container(), "ports").push_back(std::move(p));
    return *this;
  }

  PodWrapper& Toleration(std::string_view key, std::string_view op, std::string_view value,
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
  PodWrapper& NodeSelector(const StringMap& selector) {
    spec()["nodeSelector"] = detail::to_object(selector);
    return *this;
  }
  // Adds a required node-affinity term `key In values`.
  PodWrapper& NodeAffinityIn(std::string_view key, const std::vector<std::string>& values) {
    return required_node_term(detail::requirement(key, "In", values));
  }
  PodWrapper& NodeAffinityNotIn(std::string_view key, const std::vector<std::string>& values) {
    return required_node_term(detail::requirement(key, "NotIn", values));
  }
  // Adds a preferred node-affinity term `key In values` with this weight.
  PodWrapper& PreferredNodeAffinity(int32_t weight, std::string_view key,
                                    const std::vector<std::string>& values) {
    boost::json::object term;
    detail::arr(term, "matchExpressions").push_back(detail::requirement(key, "In", values));
    boost::json::object pref;
    pref["weight"] = weight;
    pref["preference"] = std::move(term);
    detail::arr(node_affinity(), "preferredDuringSchedulingIgnoredDuringExecution")
        .push_back(std::move(pref));
    return *this;
  }

  // Pod (anti-)affinity terms whose selector is `label_key Exists` or `label_key In values`.
  PodWrapper& PodAffinityExists(std::string_view label_key, std::string_view topology_key,
                                AffinityKind kind) {
    return pod_affinity_term("podAffinity", label_key, "Exists", {}, topology_key, kind);
  }
  PodWrapper& PodAffinityIn(std::string_view label_key, std::string_view topology_key,
                            const std::vector<std::string>& values, AffinityKind kind) {
    return pod_affinity_term("podAffinity", label_key, "In", values, topology_key, kind);
  }
  PodWrapper& PodAntiAffinityExists(std::string_view label_key, std::string_view topology_key,
                                    AffinityKind kind) {
    return pod_affinity_term("podAntiAffinity", label_key, "Exists", {}, topology_key, kind);
  }
  PodWrapper& PodAntiAffinityIn(std::string_view label_key, std::string_view topology_key,
                                const std::vector<std::string>& values, AffinityKind kind) {
    return pod_affinity_term("podAntiAffinity", label_key, "In", values, topology_key, kind);
  }

  // A topology spread constraint selecting pods with `selector` labels.
  PodWrapper& SpreadConstraint(int32_t max_skew, std::string_view topology_key,
                               std::string_view when_unsatisfiable, const StringMap& selector,
                               std::optional<int32_t> min_domains = std::nullopt) {
    boost::json::object c;
    c["maxSkew"] = max_skew;
    c["topologyKey"] = topology_key;
    c["whenUnsatisfiable"] = when_unsatisfiable;
    detail::obj(c, "labelSelector")["matchLabels"] = detail::to_object(selector);
    if (min_domains) {
      c["minDomains"] = *min_domains;
    }
    detail::arr(spec(), "topologySpreadConstraints").push_back(std::move(c));
    return *this;
  }
  PodWrapper& SchedulingGates(const std::vector<std::string>& gates) {
    boost::json::array out;
    for (const auto& g : gates) {
      boost::json::object o;
      o["name"] = g;
      out.push_back(std::move(o));
    }
    spec()["schedulingGates"] = std::move(out);
    return *this;
  }

  PodWrapper& NominatedNodeName(std::string_view s) { return status_field("nominatedNodeName", s); }
  PodWrapper& Phase(std::string_view s) { return status_field("phase", s); }
  PodWrapper& StartTime(std::string_view rfc3339) { return status_field("startTime", rfc3339); }

  // Sets an arbitrary field by path, for cases the builder does not cover.
  PodWrapper& Set(std::initializer_list<std::string_view> path, boost::json::value v) {
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

  boost::json::value Json() const { return json_; }
  std::shared_ptr<const Pod> Obj() const {
    std::string error;
    auto pod = parse_pod(boost::json::value(json_), error);
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
  PodWrapper& spec_field(std::string_view key, std::string_view value) {
    spec()[key] = value;
    return *this;
  }
  PodWrapper& status_field(std::string_view key, std::string_view value) {
    detail::obj(json_, "status")[key] = value;
    return *this;
  }
  PodWrapper& add_container(const ResourceMap& requests, const ResourceMap& limits) {
    boost::json::array& containers = detail::arr(spec(), "containers");
    boost::json::object c;
    c["name"] = "con" + std::to_string(containers.size());
    c["image"] = kPauseImage;
    if (!requests.empty()) {
      detail::obj(c, "resources")["requests"] = detail::to_object(requests);
    }
    if (!limits.empty()) {
      detail::obj(c, "resources")["limits"] = detail::to_object(limits);
    }
    containers.push_back(std::move(c));
    return *this;
  }
  PodWrapper& add_init_container(const ResourceMap& requests,
                                 std::optional<std::string_view> restart_policy) {
    boost::json::array& inits = detail::arr(spec(), "initContainers");
    boost::json::object c;
    c["name"] = "init" + std::to_string(inits.size());
    c["image"] = kPauseImage;
    if (!requests.empty()) {
      detail::obj(c, "resources")["requests"] = detail::to_object(requests);
    }
    if (restart_policy) {
      c["restartPolicy"] = *restart_policy;
    }
    inits.push_back(std::move(c));
    return *this;
  }
  boost::json::object& last_container() {
    if (detail::arr(spec(), "containers").empty()) {
      add_container({}, {});
    }
    return detail::arr(spec(), "containers").back().as_object();
  }
  boost::json::object& node_affinity() {
    return detail::obj(detail::obj(spec(), "affinity"), "nodeAffinity");
  }
  PodWrapper& required_node_term(boost::json::object req) {
    boost::json::object& required =
        detail::obj(node_affinity(), "requiredDuringSchedulingIgnoredDuringExecution");
    boost::json::object term;
    detail::arr(term, "matchExpressions").push_back(std::move(req));
    detail::arr(required, "nodeSelectorTerms").push_back(std::move(term));
    return *this;
  }
  PodWrapper& pod_affinity_term(std::string_view which, std::string_view label_key,
                                std::string_view op, const std::vector<std::string>& values,
                                std::string_view topology_key, AffinityKind kind) {
    boost::json::object term;
    detail::arr(detail::obj(term, "labelSelector"), "matchExpressions")
        .push_back(detail::requirement(label_key, op, values));
    term["topologyKey"] = topology_key;
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

inline PodWrapper MakePod() { return PodWrapper(); }

class NodeWrapper {
 public:
  // Like upstream MakeNode(): capacity = allocatable = {pods: 32}.
  NodeWrapper() {
    detail::obj(json_, "metadata");
    Capacity({});
  }

  NodeWrapper& Name(std::string_view s) {
    detail::obj(json_, "metadata")["name"] = s;
    return *this;
  }
  NodeWrapper& UID(std::string_view s) {
    detail::obj(json_, "metadata")["uid"] = s;
    return *this;
  }
  NodeWrapper& Label(std::string_view k, std::string_view v) {
    detail::obj(detail::obj(json_, "metadata"), "labels")[k] = v;
    return *this;
  }
  // Sets capacity and allocatable; "pods" defaults to 32 unless given.
  NodeWrapper& Capacity(const ResourceMap& resources) {
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
  NodeWrapper& Allocatable(const ResourceMap& resources) {
    detail::obj(json_, "status")["allocatable"] = detail::to_object(resources);
    return *this;
  }
  NodeWrapper& Taint(std::string_view key, std::string_view value, std::string_view effect) {
    boost::json::object t;
    t["key"] = key;
    t["value"] = value;
    t["effect"] = effect;
    detail::arr(detail::obj(json_, "spec"), "taints").push_back(std::move(t));
    return *this;
  }
  NodeWrapper& Unschedulable(bool u) {
    detail::obj(json_, "spec")["unschedulable"] = u;
    return *this;
  }
  // One image entry per element, each with a single name.
  NodeWrapper& Images(const std::vector<std::pair<std::string, int64_t>>& images) {
    for (const auto& [name, size] : images) {
      Image({name}, size);
    }
    return *this;
  }
  // One image entry with several names.
  NodeWrapper& Image(const std::vector<std::string>& names, int64_t size_bytes) {
    boost::json::object img;
    img["names"] = detail::to_array(names);
    img["sizeBytes"] = size_bytes;
    detail::arr(detail::obj(json_, "status"), "images").push_back(std::move(img));
    return *this;
  }

  boost::json::value Json() const { return json_; }
  std::shared_ptr<const Node> Obj() const {
    std::string error;
    auto node = parse_node(boost::json::value(json_), error);
    if (!node) {
      throw std::runtime_error("MakeNode: " + error);
    }
    return node;
  }

 private:
  boost::json::object json_;
};

inline NodeWrapper MakeNode() { return NodeWrapper(); }

}  // namespace sh::model::testing

#endif  // SCHEDHOST_HOST_MODEL_TESTING_WRAPPERS_H
