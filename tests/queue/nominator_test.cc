// Nominator: add modes, the update rule, removal and the lister check.
#include "host/queue/nominator.h"

#include <gtest/gtest.h>

#include <map>

#include "tests/queue/queue_test_util.h"

namespace sh::queue::nominator_test {
namespace {

using testing::testPod;

std::vector<std::string> names(const std::vector<PodRef>& refs) {
  std::vector<std::string> out;
  for (const PodRef& r : refs) {
    out.push_back(r.name);
  }
  return out;
}

TEST(NominatorTest, AddModes) {
  struct Case {
    const char* name;
    PodPtr pod;
    NominatingInfo info;
    std::optional<std::string> want;
  };
  const Case cases[] = {
      {"noop uses status.nominatedNodeName", testPod("p").nominatedNodeName("n1").obj(), {}, "n1"},
      {"noop without a nomination records nothing", testPod("p").obj(), {}, std::nullopt},
      {"override wins over the status", testPod("p").nominatedNodeName("n1").obj(),
       NominatingInfo::overrideWith("n2"), "n2"},
      // An Override to "" clears the nomination (v1.36 files it under the node name "",
      // which no lookup names).
      {"override with empty name", testPod("p").nominatedNodeName("n1").obj(),
       NominatingInfo::overrideWith(""), std::nullopt},
  };
  for (const Case& c : cases) {
    Nominator n;
    n.add(*c.pod, c.info);
    EXPECT_EQ(n.nodeOf("uid-p"), c.want) << c.name;
    if (c.want) {
      EXPECT_EQ(names(n.podsForNode(*c.want)), (std::vector<std::string>{"p"})) << c.name;
    } else {
      EXPECT_EQ(n.size(), 0u) << c.name;
    }
  }
}

TEST(NominatorTest, ReAddingMovesThePod) {
  Nominator n;
  PodPtr p = testPod("p").obj();
  n.add(*p, NominatingInfo::overrideWith("n1"));
  n.add(*testPod("q").obj(), NominatingInfo::overrideWith("n1"));
  n.add(*p, NominatingInfo::overrideWith("n2"));
  EXPECT_EQ(names(n.podsForNode("n1")), (std::vector<std::string>{"q"}));
  EXPECT_EQ(names(n.podsForNode("n2")), (std::vector<std::string>{"p"}));
  n.add(*p, NominatingInfo::overrideWith("n2"));
  EXPECT_EQ(names(n.podsForNode("n2")), (std::vector<std::string>{"p"}));
  EXPECT_EQ(n.size(), 2u);
}

TEST(NominatorTest, NominationOrderIsKept) {
  Nominator n;
  for (const char* name : {"c", "a", "b"}) {
    n.add(*testPod(name).obj(), NominatingInfo::overrideWith("n1"));
  }
  EXPECT_EQ(names(n.podsForNode("n1")), (std::vector<std::string>{"c", "a", "b"}));
  n.remove(*testPod("a").obj());
  EXPECT_EQ(names(n.podsForNode("n1")), (std::vector<std::string>{"c", "b"}));
  n.remove(*testPod("zz").obj());
  EXPECT_TRUE(n.podsForNode("n9").empty());
}

TEST(NominatorTest, RemovingTheLastPodForgetsTheNode) {
  Nominator n;
  PodPtr p = testPod("p").obj();
  n.add(*p, NominatingInfo::overrideWith("n1"));
  n.remove(*p);
  EXPECT_TRUE(n.podsForNode("n1").empty());
  EXPECT_FALSE(n.nodeOf("uid-p").has_value());
  EXPECT_EQ(n.size(), 0u);
}

TEST(NominatorTest, UpdateRule) {
  struct Case {
    const char* name;
    std::optional<std::string> recorded;  // nomination held before the update
    PodPtr old;
    PodPtr cur;
    std::optional<std::string> want;
  };
  const Case cases[] = {
      {"neither version nominated: the recorded nomination survives", "n1", testPod("p").obj(),
       testPod("p").label("a", "b").obj(), "n1"},
      {"neither version nominated, nothing recorded", std::nullopt, testPod("p").obj(),
       testPod("p").obj(), std::nullopt},
      {"nomination added", std::nullopt, testPod("p").obj(),
       testPod("p").nominatedNodeName("n2").obj(), "n2"},
      {"nomination changed", "n1", testPod("p").nominatedNodeName("n1").obj(),
       testPod("p").nominatedNodeName("n2").obj(), "n2"},
      {"nomination removed", "n1", testPod("p").nominatedNodeName("n1").obj(), testPod("p").obj(),
       std::nullopt},
  };
  for (const Case& c : cases) {
    Nominator n;
    if (c.recorded) {
      n.add(*c.old, NominatingInfo::overrideWith(*c.recorded));
    }
    n.update(*c.old, *c.cur);
    EXPECT_EQ(n.nodeOf("uid-p"), c.want) << c.name;
  }
}

TEST(NominatorTest, ListerRefusesDeletedAndBoundPods) {
  std::map<std::string, PodPtr> live = {{"alive", testPod("alive").obj()},
                                        {"bound", testPod("bound").node("n5").obj()}};
  Nominator n([&](std::string_view, std::string_view name) -> PodPtr {
    auto it = live.find(std::string(name));
    return it == live.end() ? nullptr : it->second;
  });
  for (const char* name : {"alive", "bound", "gone"}) {
    n.add(*testPod(name).obj(), NominatingInfo::overrideWith("n1"));
  }
  EXPECT_EQ(names(n.podsForNode("n1")), (std::vector<std::string>{"alive"}));
}

}  // namespace
}  // namespace sh::queue::nominator_test
