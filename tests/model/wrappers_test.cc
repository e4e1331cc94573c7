#include "host/model/testing/wrappers.h"

#include <gtest/gtest.h>

namespace sh::model::wrappers_test {
namespace {

using testing::makeNode;
using testing::makePod;

TEST(WrappersTest, PodJsonShape) {
  boost::json::value v = makePod()
                             .name("p")
                             .inNamespace("ns")
                             .req({{"cpu", "1"}})
                             .sidecarReq({{"memory", "1Gi"}})
                             .hostPort(8080)
                             .parseJson();
  const auto& spec = v.at("spec").as_object();
  EXPECT_EQ(v.at("metadata").at("name"), "p");
  EXPECT_EQ(spec.at("containers").as_array().size(), 1u);
  EXPECT_EQ(spec.at("containers").at(0).at("resources").at("requests").at("cpu"), "1");
  EXPECT_EQ(spec.at("containers").at(0).at("ports").at(0).at("hostPort"), 8080);
  EXPECT_EQ(spec.at("initContainers").at(0).at("restartPolicy"), "Always");
}

TEST(WrappersTest, ObjThrowsOnInvalidManifest) {
  EXPECT_THROW(makePod().obj(), std::runtime_error);  // no name
  EXPECT_THROW(makeNode().obj(), std::runtime_error);
}

TEST(WrappersTest, NodeDefaultsToThirtyTwoPods) {
  auto node = makeNode().name("n").obj();
  EXPECT_EQ(node->view().allocatable.allowed_pod_number, 32);
  node = makeNode().name("n").capacity({{"pods", "110"}}).allocatable({{"cpu", "1"}}).obj();
  EXPECT_EQ(node->view().allocatable.allowed_pod_number, 0);
  EXPECT_EQ(node->view().allocatable.milli_cpu, 1000);
}

}  // namespace
}  // namespace sh::model::wrappers_test
