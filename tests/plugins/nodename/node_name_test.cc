// NodeName: spec.nodeName pins a pod to one node. Cases after upstream node_name_test.go.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::node_name_test {
namespace {

constexpr char kNodeName[] = "NodeName";

TEST(NodeNameTest, Filter) {
  struct Case {
    std::string name;
    PodPtr pod;
    std::string wantCode;
  };
  std::vector<Case> cases = {
      {"no host specified", makePod().name("p").uid("p").obj(), "Success"},
      {"host matches", makePod().name("p").uid("p").node("n1").obj(), "Success"},
      {"host doesn't match", makePod().name("p").uid("p").node("n2").obj(),
       "UnschedulableAndUnresolvable"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = evaluate({{kNodeName, ""}}, {makeNode().name("n1").obj()}, {}, c.pod);
    auto status = filterStatus(result, "n1", kNodeName);
    EXPECT_EQ(status.code, c.wantCode);
    if (c.wantCode != "Success") {
      EXPECT_EQ(status.reasons,
                std::vector<std::string>{"node(s) didn't match the requested node name"});
    }
  }
}

TEST(NodeNameTest, Events) {
  LoadedPlugin plugin(kNodeName);
  EXPECT_EQ(
      registrations(plugin),
      (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{{SH_RESOURCE_NODE, SH_ACTION_ADD, 0}}));
}

}  // namespace
}  // namespace schedhost::testing::node_name_test
