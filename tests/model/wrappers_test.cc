#include "host/model/testing/wrappers.h"

#include <gtest/gtest.h>

namespace sh::model {
namespace {

using testing::MakeNode;
using testing::MakePod;

TEST(WrappersTest, PodJsonShape) {
  boost::json::value v = MakePod()
                             .Name("p")
                             .Namespace("ns")
                             .Req({{"cpu", "1"}})
                             .SidecarReq({{"memory", "1Gi"}})
                             .HostPort(8080)
                             .Json();
  const auto& spec = v.at("spec").as_object();
  EXPECT_EQ(v.at("metadata").at("name"), "p");
  EXPECT_EQ(spec.at("containers").as_array().size(), 1u);
  EXPECT_EQ(spec.at("containers").at(0).at("resources").at("requests").at("cpu"), "1");
  EXPECT_EQ(spec.at("containers").at(0).at("ports").at(0).at("hostPort"), 8080);
  EXPECT_EQ(spec.at("initContainers").at(0).at("restartPolicy"), "Always");
}

TEST(WrappersTest, ObjThrowsOnInvalidManifest) {
  EXPECT_THROW(MakePod().Obj(), std::runtime_error);  // no name
  EXPECT_THROW(MakeNode().Obj(), std::runtime_error);
}

TEST(WrappersTest, NodeDefaultsToThirtyTwoPods) {
  auto node = MakeNode().Name("n").Obj();
  EXPECT_EQ(node->view().allocatable.allowed_pod_number, 32);
  node = MakeNode().Name("n").Capacity({{"pods", "110"}}).Allocatable({{"cpu", "1"}}).Obj();
  EXPECT_EQ(node->view().allocatable.allowed_pod_number, 0);
  EXPECT_EQ(node->view().allocatable.milli_cpu, 1000);
}

}  // namespace
}  // namespace sh::model
