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

inline void runScoreCases(const std::string& plugin, const std::vector<ScoreCase>& cases) {
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = evaluate({{plugin, c.args}}, c.nodes, c.placed, c.pod);
    for (const auto& [node, score] : c.want) {
      EXPECT_EQ(scoreOf(result, node, plugin), score) << node;
    }
  }
}

// A node with this cpu and memory (and 32 pods).
inline NodePtr cpuMemNode(const std::string& name, const std::string& cpu,
                          const std::string& memory) {
  return makeNode().name(name).capacity({{"cpu", cpu}, {"memory", memory}}).obj();
}

// A pod already running on `node`; without requests it has one container that sets none.
inline PodPtr placedOn(const std::string& node, const std::string& name,
                       const sh::model::testing::ResourceMap& requests) {
  auto pod = makePod().name(name).uid(name).node(node);
  if (requests.empty()) {
    pod.container("img");
  } else {
    pod.req(requests);
  }
  return pod.obj();
}

}  // namespace schedhost::testing

#endif  // SCHEDHOST_TESTS_PLUGINS_SCORE_TEST_UTIL_H
