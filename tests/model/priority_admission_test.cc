// Priority admission: what the API server writes into a pod's spec on create.
#include "host/model/priority_admission.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "host/model/pod.h"
#include "host/model/testing/wrappers.h"

namespace sh::model::priority_admission_test {
namespace {

using testing::makePod;

// The classes most cases use: "high" (1000), "batch" (-5, Never) and, when asked, a global
// default "everyday" (7).
std::unique_ptr<ClusterObjects> classes(bool withDefault = false) {
  auto objects = std::make_unique<ClusterObjects>();
  std::string error;
  for (const char* json : {
           R"({"kind":"PriorityClass","metadata":{"name":"high"},"value":1000})",
           R"({"kind":"PriorityClass","metadata":{"name":"batch"},"value":-5,
               "preemptionPolicy":"Never"})",
       }) {
    EXPECT_TRUE(objects->add(boost::json::parse(json), error)) << error;
  }
  if (withDefault) {
    EXPECT_TRUE(objects->add(boost::json::parse(R"({"kind":"PriorityClass",
      "metadata":{"name":"everyday"},"value":7,"globalDefault":true})"),
                             error))
        << error;
  }
  return objects;
}

// The spec after admission; fails the test when admission fails.
boost::json::object admitted(boost::json::value pod, const ClusterObjects* objects) {
  std::string error;
  EXPECT_TRUE(admitPriority(pod, objects, error)) << error;
  EXPECT_TRUE(error.empty());
  return pod.at("spec").as_object();
}

TEST(PriorityAdmissionTest, ClassValueAndPolicy) {
  auto objects = classes();
  auto spec = admitted(makePod().name("p").priorityClassName("high").parseJson(), objects.get());
  EXPECT_EQ(spec.at("priority").as_int64(), 1000);
  EXPECT_EQ(spec.at("priorityClassName").as_string(), "high");
  EXPECT_EQ(spec.at("preemptionPolicy").as_string(), "PreemptLowerPriority");

  spec = admitted(makePod().name("p").priorityClassName("batch").parseJson(), objects.get());
  EXPECT_EQ(spec.at("priority").as_int64(), -5);
  EXPECT_EQ(spec.at("preemptionPolicy").as_string(), "Never");
}

TEST(PriorityAdmissionTest, ThePodsOwnPreemptionPolicyIsKept) {
  auto objects = classes();
  auto spec =
      admitted(makePod().name("p").priorityClassName("high").preemptionPolicy("Never").parseJson(),
               objects.get());
  EXPECT_EQ(spec.at("priority").as_int64(), 1000);
  EXPECT_EQ(spec.at("preemptionPolicy").as_string(), "Never");
}

TEST(PriorityAdmissionTest, UnknownClassIsRefusedAndThePodUnchanged) {
  auto objects = classes();
  boost::json::value pod = makePod().name("p").priorityClassName("gold").parseJson();
  const boost::json::value before = pod;
  std::string error;
  EXPECT_FALSE(admitPriority(pod, objects.get(), error));
  EXPECT_EQ(error, "spec.priorityClassName: no PriorityClass with name gold was found");
  EXPECT_EQ(pod, before);
  error.clear();
  EXPECT_FALSE(admitPriority(pod, nullptr, error));
  EXPECT_EQ(error, "spec.priorityClassName: no PriorityClass with name gold was found");
}

TEST(PriorityAdmissionTest, GlobalDefaultFillsAPodWithoutAClass) {
  auto objects = classes(true);
  auto spec = admitted(makePod().name("p").parseJson(), objects.get());
  EXPECT_EQ(spec.at("priority").as_int64(), 7);
  EXPECT_EQ(spec.at("priorityClassName").as_string(), "everyday");
  EXPECT_EQ(spec.at("preemptionPolicy").as_string(), "PreemptLowerPriority");
  // An empty name is no name.
  spec = admitted(makePod().name("p").priorityClassName("").parseJson(), objects.get());
  EXPECT_EQ(spec.at("priority").as_int64(), 7);
  EXPECT_EQ(spec.at("priorityClassName").as_string(), "everyday");
  // A named class wins over the default.
  spec = admitted(makePod().name("p").priorityClassName("high").parseJson(), objects.get());
  EXPECT_EQ(spec.at("priority").as_int64(), 1000);
}

TEST(PriorityAdmissionTest, NoClassAndNoDefaultIsZero) {
  auto objects = classes();
  for (const ClusterObjects* o : {static_cast<const ClusterObjects*>(objects.get()),
                                  static_cast<const ClusterObjects*>(nullptr)}) {
    auto spec = admitted(makePod().name("p").parseJson(), o);
    EXPECT_EQ(spec.at("priority").as_int64(), 0);
    EXPECT_FALSE(spec.contains("priorityClassName"));
    EXPECT_EQ(spec.at("preemptionPolicy").as_string(), "PreemptLowerPriority");
  }
  // A pod with no spec at all gets one.
  boost::json::value bare = boost::json::parse(R"({"metadata":{"name":"p"}})");
  EXPECT_EQ(admitted(bare, nullptr).at("priority").as_int64(), 0);
}

TEST(PriorityAdmissionTest, SystemClassesAreAlwaysKnown) {
  auto spec =
      admitted(makePod().name("p").priorityClassName("system-node-critical").parseJson(), nullptr);
  EXPECT_EQ(spec.at("priority").as_int64(), 2000001000);
  spec = admitted(makePod().name("p").priorityClassName("system-cluster-critical").parseJson(),
                  nullptr);
  EXPECT_EQ(spec.at("priority").as_int64(), 2000000000);
  EXPECT_EQ(spec.at("preemptionPolicy").as_string(), "PreemptLowerPriority");
  ASSERT_NE(systemPriorityClass("system-node-critical"), nullptr);
  EXPECT_EQ(systemPriorityClass("system-node-critical")->value, 2000001000);
  EXPECT_EQ(systemPriorityClass("high"), nullptr);
}

TEST(PriorityAdmissionTest, APodWithAPriorityIsLeftAsItIs) {
  auto objects = classes(true);
  // It went through admission already: even a class that is gone by now does not matter.
  boost::json::value pod = makePod().name("p").priority(3).priorityClassName("gone").parseJson();
  const boost::json::value before = pod;
  std::string error;
  EXPECT_TRUE(admitPriority(pod, objects.get(), error)) << error;
  EXPECT_EQ(pod, before);
}

TEST(PriorityAdmissionTest, MalformedFieldsAreLeftForTheParser) {
  auto objects = classes(true);
  for (const char* json : {R"([1])", R"({"spec": "none"})",
                           R"({"metadata":{"name":"p"},"spec":{"priorityClassName":3}})"}) {
    boost::json::value pod = boost::json::parse(json);
    const boost::json::value before = pod;
    std::string error;
    EXPECT_TRUE(admitPriority(pod, objects.get(), error)) << json;
    EXPECT_EQ(pod, before) << json;
  }
  // A null priority is an unset one, as parse_pod reads it.
  boost::json::value pod =
      boost::json::parse(R"({"metadata":{"name":"p"},"spec":{"priority":null}})");
  EXPECT_EQ(admitted(pod, objects.get()).at("priority").as_int64(), 7);
}

TEST(PriorityAdmissionTest, TheAdmittedPodParsesWithItsPriority) {
  auto objects = classes();
  boost::json::value pod = makePod().name("p").priorityClassName("batch").parseJson();
  std::string error;
  ASSERT_TRUE(admitPriority(pod, objects.get(), error)) << error;
  auto parsed = parsePod(pod, error);
  ASSERT_NE(parsed, nullptr) << error;
  EXPECT_TRUE(parsed->hasPriority());
  EXPECT_EQ(parsed->view().priority, -5);
  EXPECT_EQ(parsed->view().preemption_policy, SH_PREEMPT_NEVER);
  EXPECT_EQ(parsed->priorityClassName(), "batch");
}

}  // namespace
}  // namespace sh::model::priority_admission_test
