// Table-driven score tests: each case runs one plugin over its nodes and checks the
// normalised scores it gave.
#ifndef SCHEDHOST_TESTS_PLUGINS_SCORE_TEST_UTIL_H
#define SCHEDHOST_TESTS_PLUGINS_SCORE_TEST_UTIL_H

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing {

struct ScoreCase {
  std::string name;
  std::string args;  // the plugin's args JSON; "" for the defaults
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> placed;
  PodPtr pod;
  std::map<std::string, int64_t> want;  // node → score; -1 for "not scored"
};

inline void RunScoreCases(const std::string& plugin, const std::vector<ScoreCase>& cases) {
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = Evaluate({{plugin, c.args}}, c.nodes, c.placed, c.pod);
    for (const auto& [node, score] : c.want) {
      EXPECT_EQ(Score(result, node, plugin), score) << node;
    }
  }
}

// A node with this cpu and memory (and 32 pods).
inline NodePtr CpuMemNode(const std::string& name, const std::string& cpu,
                          const std::string& memory) {
  return MakeNode().Name(name).Capacity({{"cpu", cpu}, {"memory", memory}}).Obj();
}

// A pod already running on `node`; without requests it has one container that sets none.
inline PodPtr PlacedOn(const std::string& node, const std::string& name,
                       const sh::model::testing::ResourceMap& requests) {
  auto pod = MakePod().Name(name).UID(name).Node(node);
  if (requests.empty()) {
    pod.Container("img");
  } else {
    pod.Req(requests);
  }
  return pod.Obj();
}

}  // namespace schedhost::testing

#endif  // SCHEDHOST_TESTS_PLUGINS_SCORE_TEST_UTIL_H
