// The JSON of the extender protocol (host/extender/extender_messages.h) against upstream's
// k8s.io/kube-scheduler/extender/v1 types as Go's encoding/json writes and reads them.
#include "host/extender/extender_messages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "host/model/node.h"
#include "host/model/pod.h"
#include "tests/extender/extender_objects.h"

namespace sh::extender::extender_messages_test {
namespace {

namespace json = boost::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::makeNode;
using testing::makePod;
using ::testing::Pair;
using testing::parse;
using ::testing::UnorderedElementsAre;

using ExtenderMessagesTest = testing::ExtenderObjectsTest;

// --- encodeArgs, encodeBindingArgs, encodePreemptionArgs ---

TEST_F(ExtenderMessagesTest, EncodeArgsSendsWholeNodesAsANodeList) {
  json::value args = parse(encodeArgs(*pod_, nodes_, /*nodeCacheCapable=*/false));
  ASSERT_TRUE(args.is_object());
  const json::object& o = args.as_object();
  EXPECT_EQ(o.at("Pod"), parse(pod_->json()));
  ASSERT_TRUE(o.contains("NodeNames"));
  EXPECT_TRUE(o.at("NodeNames").is_null());
  const json::array& items = o.at("Nodes").at("items").as_array();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0], parse(a_->json()));
  EXPECT_EQ(items[1], parse(b_->json()));
  EXPECT_EQ(items[1].at("status").at("allocatable").at("cpu"), "4");  // the whole manifest
}

TEST_F(ExtenderMessagesTest, EncodeArgsSendsOnlyNodeNamesWhenNodeCacheCapable) {
  json::value args = parse(encodeArgs(*pod_, nodes_, /*nodeCacheCapable=*/true));
  const json::object& o = args.as_object();
  EXPECT_EQ(o.at("Pod"), parse(pod_->json()));
  ASSERT_TRUE(o.contains("Nodes"));
  EXPECT_TRUE(o.at("Nodes").is_null());
  EXPECT_EQ(o.at("NodeNames"), parse(R"(["a","b"])"));
}

TEST_F(ExtenderMessagesTest, EncodeArgsWithNoNodesIsStillJson) {
  json::value whole = parse(encodeArgs(*pod_, {}, false));
  EXPECT_TRUE(whole.at("Nodes").at("items").as_array().empty());
  json::value names = parse(encodeArgs(*pod_, {}, true));
  EXPECT_TRUE(names.at("NodeNames").as_array().empty());  // [] as upstream's empty slice
}

TEST_F(ExtenderMessagesTest, EncodeBindingArgsNamesThePodAndTheNode) {
  json::value args = parse(encodeBindingArgs(*pod_, "a"));
  EXPECT_EQ(args, parse(R"({"PodName":"web","PodNamespace":"team","PodUID":"uid-web",)"
                        R"("Node":"a"})"));
}

TEST_F(ExtenderMessagesTest, EncodePreemptionArgsSendsWholeVictims) {
  auto victim = makePod("old", "uid-old");
  cycle::NodeVictims victims;
  victims["a"].pods = {victim.get()};
  victims["a"].numPdbViolations = 2;
  victims["b"];
  json::value args = parse(encodePreemptionArgs(*pod_, victims, /*nodeCacheCapable=*/false));
  EXPECT_EQ(args.at("Pod"), parse(pod_->json()));
  EXPECT_TRUE(args.at("NodeNameToMetaVictims").is_null());
  const json::object& byNode = args.at("NodeNameToVictims").as_object();
  ASSERT_EQ(byNode.size(), 2u);
  EXPECT_EQ(byNode.at("a").at("Pods"), json::array({parse(victim->json())}));
  EXPECT_EQ(byNode.at("a").at("NumPDBViolations"), 2);
  EXPECT_TRUE(byNode.at("b").at("Pods").as_array().empty());
  EXPECT_EQ(byNode.at("b").at("NumPDBViolations"), 0);
}

TEST_F(ExtenderMessagesTest, EncodePreemptionArgsSendsVictimUidsWhenNodeCacheCapable) {
  auto victim = makePod("old", "uid-old");
  cycle::NodeVictims victims;
  victims["a"].pods = {victim.get()};
  victims["a"].numPdbViolations = 1;
  json::value args = parse(encodePreemptionArgs(*pod_, victims, /*nodeCacheCapable=*/true));
  EXPECT_TRUE(args.at("NodeNameToVictims").is_null());
  EXPECT_EQ(args.at("NodeNameToMetaVictims"),
            parse(R"({"a":{"Pods":[{"UID":"uid-old"}],"NumPDBViolations":1}})"));
}

// --- decodeFilterResult ---

struct Filtered {
  bool ok = false;
  cycle::ExtenderFilterResult result;
  std::string extenderError;
  std::string problem;
};

Filtered decodeFilter(std::string_view text, bool nodeCacheCapable) {
  Filtered f;
  f.ok = decodeFilterResult(text, nodeCacheCapable, f.result, f.extenderError, f.problem);
  return f;
}

TEST(ExtenderFilterResultTest, ReadsNodeNamesWhenNodeCacheCapable) {
  Filtered f = decodeFilter(R"({"NodeNames":["a","c"],"Nodes":null,"Error":""})", true);
  ASSERT_TRUE(f.ok) << f.problem;
  EXPECT_THAT(f.result.nodes, ElementsAre("a", "c"));
  EXPECT_EQ(f.extenderError, "");
}

TEST(ExtenderFilterResultTest, ReadsTheNodeListsNamesWhenNotNodeCacheCapable) {
  // NodeNames are upstream's only when nodeCacheCapable: the Nodes' names are read otherwise.
  Filtered f = decodeFilter(R"({"NodeNames":["x"],"Nodes":{"metadata":{},"items":[)"
                            R"({"metadata":{"name":"a","labels":{"k":"v"}},"status":{}},)"
                            R"({"metadata":{"name":"b"}}]}})",
                            false);
  ASSERT_TRUE(f.ok) << f.problem;
  EXPECT_THAT(f.result.nodes, ElementsAre("a", "b"));
}

TEST(ExtenderFilterResultTest, NodeCacheCapableFallsBackToTheNodeListWhenNodeNamesIsNull) {
  Filtered f =
      decodeFilter(R"({"NodeNames":null,"Nodes":{"items":[{"metadata":{"name":"b"}}]}})", true);
  ASSERT_TRUE(f.ok) << f.problem;
  EXPECT_THAT(f.result.nodes, ElementsAre("b"));
}

TEST(ExtenderFilterResultTest, NoNodesMemberPassesNoNode) {
  Filtered f = decodeFilter("{}", false);
  ASSERT_TRUE(f.ok) << f.problem;
  EXPECT_THAT(f.result.nodes, IsEmpty());
  f = decodeFilter(R"({"Nodes":{"items":null}})", false);
  ASSERT_TRUE(f.ok) << f.problem;
  EXPECT_THAT(f.result.nodes, IsEmpty());
}

TEST(ExtenderFilterResultTest, ReadsFailedAndFailedAndUnresolvableNodes) {
  Filtered f = decodeFilter(R"({"NodeNames":["a"],"FailedNodes":{"b":"too hot","c":"full"},)"
                            R"("FailedAndUnresolvableNodes":{"d":"gone"}})",
                            true);
  ASSERT_TRUE(f.ok) << f.problem;
  EXPECT_THAT(f.result.nodes, ElementsAre("a"));
  EXPECT_THAT(f.result.failedNodes, UnorderedElementsAre(Pair("b", "too hot"), Pair("c", "full")));
  EXPECT_THAT(f.result.failedAndUnresolvableNodes, UnorderedElementsAre(Pair("d", "gone")));
}

TEST(ExtenderFilterResultTest, ReadsTheError) {
  Filtered f = decodeFilter(R"({"Error":"the extender is out of GPUs"})", true);
  ASSERT_TRUE(f.ok) << f.problem;
  EXPECT_EQ(f.extenderError, "the extender is out of GPUs");
}

TEST(ExtenderFilterResultTest, MatchesMemberNamesWithoutRegardToCaseAsGo) {
  Filtered f = decodeFilter(R"({"nodenames":["a"],"failedNodes":{"b":"no"},)"
                            R"("FAILEDANDUNRESOLVABLENODES":{"c":"never"},"error":"e"})",
                            true);
  ASSERT_TRUE(f.ok) << f.problem;
  EXPECT_THAT(f.result.nodes, ElementsAre("a"));
  EXPECT_THAT(f.result.failedNodes, ElementsAre(Pair("b", "no")));
  EXPECT_THAT(f.result.failedAndUnresolvableNodes, ElementsAre(Pair("c", "never")));
  EXPECT_EQ(f.extenderError, "e");

  f = decodeFilter(R"({"nodes":{"Items":[{"Metadata":{"Name":"z"}}]}})", false);
  ASSERT_TRUE(f.ok) << f.problem;
  EXPECT_THAT(f.result.nodes, ElementsAre("z"));
}

TEST(ExtenderFilterResultTest, RefusesWhatIsNotAnExtenderFilterResult) {
  struct Case {
    std::string_view text;
    bool nodeCacheCapable;
    std::string_view problem;
  };
  const Case cases[] = {
      {"", true, "not JSON"},
      {"<html>502 Bad Gateway</html>", false, "not JSON"},
      {R"({"NodeNames":["a"])", true, "not JSON"},
      {"[]", true, "ExtenderFilterResult"},
      {"null", true, "ExtenderFilterResult"},
      {R"("a")", false, "ExtenderFilterResult"},
      {R"({"NodeNames":"a"})", true, "NodeNames"},
      {R"({"NodeNames":["a",1]})", true, "NodeNames"},
      {R"({"failedNodes":["a"]})", true, "FailedNodes"},
      {R"({"FailedNodes":{"a":1}})", false, "FailedNodes.a"},
      {R"({"FailedAndUnresolvableNodes":"a"})", true, "FailedAndUnresolvableNodes"},
      {R"({"Error":42})", true, "Error"},
      {R"({"Nodes":["a"]})", false, "Nodes"},
      {R"({"Nodes":{"items":{"a":{}}}})", false, "Nodes"},
      {R"({"Nodes":{"items":[{"metadata":{}}]}})", false, "Nodes.items"},
      {R"({"Nodes":{"items":[{"metadata":{"name":7}}]}})", false, "Nodes.items"},
      {R"({"Nodes":{"items":["a"]}})", false, "Nodes.items"},
  };
  for (const Case& c : cases) {
    Filtered f = decodeFilter(c.text, c.nodeCacheCapable);
    EXPECT_FALSE(f.ok) << c.text;
    EXPECT_THAT(f.problem, HasSubstr(std::string(c.problem))) << c.text;
  }
}

// --- decodeHostPriorityList ---

TEST(ExtenderHostPriorityListTest, ReadsHostsAndScores) {
  std::vector<cycle::HostPriority> out;
  std::string problem;
  ASSERT_TRUE(decodeHostPriorityList(
      R"([{"Host":"a","Score":7},{"host":"b","score":0},{"Host":"c"}])", out, problem))
      << problem;
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].host, "a");
  EXPECT_EQ(out[0].score, 7);
  EXPECT_EQ(out[1].host, "b");
  EXPECT_EQ(out[1].score, 0);
  EXPECT_EQ(out[2].host, "c");
  EXPECT_EQ(out[2].score, 0);  // absent: the zero value
}

TEST(ExtenderHostPriorityListTest, NullIsAnEmptyList) {
  std::vector<cycle::HostPriority> out;
  std::string problem;
  EXPECT_TRUE(decodeHostPriorityList("null", out, problem)) << problem;
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(decodeHostPriorityList("[]", out, problem)) << problem;
  EXPECT_TRUE(out.empty());
}

TEST(ExtenderHostPriorityListTest, RefusesScoresThatAreNotIntegers) {
  for (std::string_view text : {R"([{"Host":"a","Score":2.5}])", R"([{"Host":"a","Score":"5"}])",
                                R"([{"Host":"a","Score":true}])", R"([{"Host":"a","Score":1.0}])",
                                R"([{"Host":"a","Score":18446744073709551615}])"}) {
    std::vector<cycle::HostPriority> out;
    std::string problem;
    EXPECT_FALSE(decodeHostPriorityList(text, out, problem)) << text;
    EXPECT_THAT(problem, HasSubstr("Score of \"a\"")) << text;
  }
}

TEST(ExtenderHostPriorityListTest, RefusesWhatIsNotAList) {
  struct Case {
    std::string_view text;
    std::string_view problem;
  };
  const Case cases[] = {
      {"not json", "not JSON"},
      {R"({"Host":"a","Score":1})", "HostPriorityList"},
      {R"(["a"])", "HostPriorityList"},
      {R"([{"Host":1,"Score":1}])", "Host"},
  };
  for (const Case& c : cases) {
    std::vector<cycle::HostPriority> out;
    std::string problem;
    EXPECT_FALSE(decodeHostPriorityList(c.text, out, problem)) << c.text;
    EXPECT_THAT(problem, HasSubstr(std::string(c.problem))) << c.text;
  }
}

// --- decodeBindingResult ---

TEST(ExtenderBindingResultTest, ReadsTheError) {
  std::string error;
  std::string problem;
  ASSERT_TRUE(decodeBindingResult(R"({"Error":""})", error, problem)) << problem;
  EXPECT_EQ(error, "");
  ASSERT_TRUE(decodeBindingResult("{}", error, problem)) << problem;
  EXPECT_EQ(error, "");
  ASSERT_TRUE(decodeBindingResult(R"({"error":"node a is gone"})", error, problem)) << problem;
  EXPECT_EQ(error, "node a is gone");
}

TEST(ExtenderBindingResultTest, RefusesWhatIsNotAnExtenderBindingResult) {
  struct Case {
    std::string_view text;
    std::string_view problem;
  };
  const Case cases[] = {
      {"", "not JSON"},
      {"[]", "ExtenderBindingResult"},
      {R"({"Error":{"message":"x"}})", "Error"},
  };
  for (const Case& c : cases) {
    std::string error;
    std::string problem;
    EXPECT_FALSE(decodeBindingResult(c.text, error, problem)) << c.text;
    EXPECT_THAT(problem, HasSubstr(std::string(c.problem))) << c.text;
  }
}

// --- decodePreemptionResult ---

TEST(ExtenderPreemptionResultTest, ReadsUidsAndPdbViolationsPerNode) {
  std::map<std::string, MetaVictims> out;
  std::string problem;
  ASSERT_TRUE(decodePreemptionResult(
      R"({"NodeNameToMetaVictims":{"a":{"Pods":[{"UID":"u1"},{"uid":"u2"}],"NumPDBViolations":3},)"
      R"("b":{"pods":[],"numPDBViolations":0},"c":null,"d":{}}})",
      out, problem))
      << problem;
  ASSERT_EQ(out.size(), 4u);
  EXPECT_THAT(out["a"].uids, ElementsAre("u1", "u2"));
  EXPECT_EQ(out["a"].numPdbViolations, 3);
  EXPECT_THAT(out["b"].uids, IsEmpty());
  EXPECT_THAT(out["c"].uids, IsEmpty());  // null victims: none
  EXPECT_EQ(out["c"].numPdbViolations, 0);
  EXPECT_THAT(out["d"].uids, IsEmpty());
}

TEST(ExtenderPreemptionResultTest, NullOrAbsentMapIsNoNode) {
  for (std::string_view text : {"{}", R"({"NodeNameToMetaVictims":null})"}) {
    std::map<std::string, MetaVictims> out;
    std::string problem;
    EXPECT_TRUE(decodePreemptionResult(text, out, problem)) << problem;
    EXPECT_TRUE(out.empty()) << text;
  }
}

TEST(ExtenderPreemptionResultTest, RefusesWhatIsNotAnExtenderPreemptionResult) {
  struct Case {
    std::string_view text;
    std::string_view problem;
  };
  const Case cases[] = {
      {"{", "not JSON"},
      {"[]", "ExtenderPreemptionResult"},
      {R"({"NodeNameToMetaVictims":[]})", "NodeNameToMetaVictims"},
      {R"({"NodeNameToMetaVictims":{"a":[]}})", "NodeNameToMetaVictims.a"},
      {R"({"NodeNameToMetaVictims":{"a":{"NumPDBViolations":"1"}}})",
       "NodeNameToMetaVictims.a.NumPDBViolations"},
      {R"({"NodeNameToMetaVictims":{"a":{"Pods":{"UID":"u"}}}})", "NodeNameToMetaVictims.a.Pods"},
      {R"({"NodeNameToMetaVictims":{"a":{"Pods":[{"UID":5}]}}})", "NodeNameToMetaVictims.a.Pods"},
      {R"({"NodeNameToMetaVictims":{"a":{"Pods":["u"]}}})", "NodeNameToMetaVictims.a.Pods"},
  };
  for (const Case& c : cases) {
    std::map<std::string, MetaVictims> out;
    std::string problem;
    EXPECT_FALSE(decodePreemptionResult(c.text, out, problem)) << c.text;
    EXPECT_THAT(problem, HasSubstr(std::string(c.problem))) << c.text;
  }
}

}  // namespace
}  // namespace sh::extender::extender_messages_test
