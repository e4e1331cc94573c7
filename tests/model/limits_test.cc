// The input limits of host/common/limits.h as the Pod and Node parsers apply them: a list or map
// over its bound is refused with its path and both numbers, before any of it is read; one at
// the bound is accepted.
#include <gtest/gtest.h>

#include <string>

#include <boost/json.hpp>

#include "host/common/limits.h"
#include "host/model/node.h"
#include "host/model/pod.h"

namespace sh::model::limits_test {
namespace {

namespace json = boost::json;

json::array objects(std::size_t n, const json::object& each) {
  json::array out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(each);
  }
  return out;
}

json::object stringMap(std::size_t n) {
  json::object out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out["k" + std::to_string(i)] = "v";
  }
  return out;
}

json::value pod(json::object spec, json::object metadata = {}) {
  metadata["name"] = "p";
  return json::object{{"metadata", std::move(metadata)}, {"spec", std::move(spec)}};
}

std::string tooMany(std::size_t n, std::size_t max) {
  return "too many: " + std::to_string(n) + ": must have at most " + std::to_string(max) + " items";
}

// Parses `doc` as a Pod; "" when it was accepted, else the error.
std::string podError(const json::value& doc) {
  std::string error;
  std::shared_ptr<const Pod> p = parsePod(doc, error);
  EXPECT_EQ(p == nullptr, !error.empty());
  return error;
}

TEST(LimitsTest, ListsOfAPodOverTheirBoundAreRefused) {
  const json::object container{{"name", "c"}};
  const json::object toleration{{"operator", "Exists"}};
  const std::size_t containers = limits::kMaxContainersPerPod;
  const std::size_t tolerations = limits::kMaxTolerationsPerPod;
  EXPECT_EQ(podError(pod({{"containers", objects(containers, container)},
                          {"initContainers", objects(containers, container)},
                          {"tolerations", objects(tolerations, toleration)}})),
            "");
  EXPECT_EQ(podError(pod({{"containers", objects(containers + 1, container)}})),
            "spec.containers: " + tooMany(containers + 1, containers));
  EXPECT_EQ(podError(pod({{"initContainers", objects(containers + 1, container)}})),
            "spec.initContainers: " + tooMany(containers + 1, containers));
  EXPECT_EQ(podError(pod({{"tolerations", objects(tolerations + 1, toleration)}})),
            "spec.tolerations: " + tooMany(tolerations + 1, tolerations));
  const json::object volume{{"name", "v"}, {"emptyDir", json::object()}};
  const json::object claim{{"name", "c"}};
  const std::size_t volumes = limits::kMaxVolumesPerPod;
  EXPECT_EQ(podError(pod({{"volumes", objects(volumes, volume)},
                          {"resourceClaims", objects(volumes, claim)}})),
            "");
  EXPECT_EQ(podError(pod({{"volumes", objects(volumes + 1, volume)}})),
            "spec.volumes: " + tooMany(volumes + 1, volumes));
  EXPECT_EQ(podError(pod({{"resourceClaims", objects(volumes + 1, claim)}})),
            "spec.resourceClaims: " + tooMany(volumes + 1, volumes));
}

TEST(LimitsTest, LabelsAndAnnotationsOverTheirBoundAreRefused) {
  const std::size_t labels = limits::kMaxLabelsPerObject;
  const std::size_t annotations = limits::kMaxAnnotationsPerObject;
  EXPECT_EQ(
      podError(pod({}, {{"labels", stringMap(labels)}, {"annotations", stringMap(annotations)}})),
      "");
  EXPECT_EQ(podError(pod({}, {{"labels", stringMap(labels + 1)}})),
            "metadata.labels: " + tooMany(labels + 1, labels));
  EXPECT_EQ(podError(pod({}, {{"annotations", stringMap(annotations + 1)}})),
            "metadata.annotations: " + tooMany(annotations + 1, annotations));

  std::string error;
  const json::value node =
      json::object{{"metadata", json::object{{"name", "n"}, {"labels", stringMap(labels + 1)}}}};
  EXPECT_EQ(parseNode(node, error), nullptr);
  EXPECT_EQ(error, "metadata.labels: " + tooMany(labels + 1, labels));
}

TEST(LimitsTest, SelectorsAndAffinityTermsOverTheirBoundAreRefused) {
  const std::size_t exprs = limits::kMaxExpressionsPerSelector;
  const std::size_t terms = limits::kMaxTermsPerAffinity;
  const json::object expr{{"key", "zone"}, {"operator", "Exists"}};
  const auto nodeAffinity = [&](std::size_t termCount, std::size_t exprCount) {
    json::object term{{"matchExpressions", objects(exprCount, expr)}};
    json::object required{{"nodeSelectorTerms", objects(termCount, term)}};
    return pod(
        {{"affinity", json::object{{"nodeAffinity",
                                    json::object{{"requiredDuringSchedulingIgnoredDuringExecution",
                                                  std::move(required)}}}}}});
  };
  EXPECT_EQ(podError(nodeAffinity(terms, 1)), "");
  EXPECT_EQ(podError(nodeAffinity(1, exprs)), "");
  const std::string required =
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
  EXPECT_EQ(podError(nodeAffinity(terms + 1, 1)), required + ": " + tooMany(terms + 1, terms));
  EXPECT_EQ(podError(nodeAffinity(1, exprs + 1)),
            required + "[0].matchExpressions: " + tooMany(exprs + 1, exprs));

  json::object term{
      {"topologyKey", "zone"},
      {"labelSelector", json::object{{"matchExpressions", objects(exprs + 1, expr)}}}};
  EXPECT_EQ(
      podError(pod({{"affinity",
                     json::object{{"podAntiAffinity",
                                   json::object{{"requiredDuringSchedulingIgnoredDuringExecution",
                                                 objects(1, term)}}}}}})),
      "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
      "labelSelector.matchExpressions: " +
          tooMany(exprs + 1, exprs));
  json::object weighted{{"weight", 1}, {"podAffinityTerm", json::object{{"topologyKey", "zone"}}}};
  EXPECT_EQ(
      podError(pod({{"affinity",
                     json::object{{"podAffinity",
                                   json::object{{"preferredDuringSchedulingIgnoredDuringExecution",
                                                 objects(terms + 1, weighted)}}}}}})),
      "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution: " +
          tooMany(terms + 1, terms));
}

}  // namespace
}  // namespace sh::model::limits_test
