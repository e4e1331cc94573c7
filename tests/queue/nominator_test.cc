// Nominator: add modes, the update rule, removal and the lister check.
#include "host/queue/nominator.h"

#include <gtest/gtest.h>

#include <map>

#include "tests/queue/queue_test_util.h"

namespace sh::queue {
namespace {

using testing::Pod;

std::vector<std::string> Names(const std::vector<PodRef>& refs) {
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
      {"noop uses status.nominatedNodeName", Pod("p").NominatedNodeName("n1").Obj(), {}, "n1"},
      {"noop without a nomination records nothing", Pod("p").Obj(), {}, std::nullopt},
      {"override wins over the status", Pod("p").NominatedNodeName("n1").Obj(),
       NominatingInfo::overrideWith("n2"), "n2"},
      // v1.36 records an Override to "" under the empty node name.
      {"override with empty name", Pod("p").NominatedNodeName("n1").Obj(),
       NominatingInfo::overrideWith(""), ""},
  };
  for (const Case& c : cases) {
    Nominator n;
    n.add(*c.pod, c.info);
    EXPECT_EQ(n.nodeOf("uid-p"), c.want) << c.name;
    if (c.want) {
      EXPECT_EQ(Names(n.podsForNode(*c.want)), (std::vector<std::string>{"p"})) << c.name;
    } else {
      EXPECT_EQ(n.size(), 0u) << c.name;
    }
  }
}

TEST(NominatorTest, ReAddingMovesThePod) {
  Nominator n;
  PodPtr p = Pod("p").Obj();
  n.add(*p, NominatingInfo::overrideWith("n1"));
  n.add(*Pod("q").Obj(), NominatingInfo::overrideWith("n1"));
  n.add(*p, NominatingInfo::overrideWith("n2"));
  EXPECT_EQ(Names(n.podsForNode("n1")), (std::vector<std::string>{"q"}));
  EXPECT_EQ(Names(n.podsForNode("n2")), (std::vector<std::string>{"p"}));
  n.add(*p, NominatingInfo::overrideWith("n2"));
  EXPECT_EQ(Names(n.podsForNode("n2")), (std::vector<std::string>{"p"}));
  EXPECT_EQ(n.size(), 2u);
}

TEST(NominatorTest, NominationOrderIsKept) {
  Nominator n;
  for (const char* name : {"c", "a", "b"}) {
    n.add(*Pod(name).Obj(), NominatingInfo::overrideWith("n1"));
  }
  EXPECT_EQ(Names(n.podsForNode("n1")), (std::vector<std::string>{"c", "a", "b"}));
  n.remove(*Pod("a").Obj());
  EXPECT_EQ(Names(n.podsForNode("n1")), (std::vector<std::string>{"c", "b"}));
  n.remove(*Pod("zz").Obj());
  EXPECT_TRUE(n.podsForNode("n9").empty());
}

TEST(NominatorTest, RemovingTheLastPodForgetsTheNode) {
  Nominator n;
  PodPtr p = Pod("p").Obj();
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
      {"neither version nominated: the recorded nomination survives", "n1", Pod("p").Obj(),
       Pod("p").Label("a", "b").Obj(), "n1"},
      {"neither version nominated, nothing recorded", std::nullopt, Pod("p").Obj(), Pod("p").Obj(),
       std::nullopt},
      {"nomination added", std::nullopt, Pod("p").Obj(), Pod("p").NominatedNodeName("n2").Obj(),
       "n2"},
      {"nomination changed", "n1", Pod("p").NominatedNodeName("n1").Obj(),
       Pod("p").NominatedNodeName("n2").Obj(), "n2"},
      {"nomination removed", "n1", Pod("p").NominatedNodeName("n1").Obj(), Pod("p").Obj(),
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
  std::map<std::string, PodPtr> live = {{"alive", Pod("alive").Obj()},
                                        {"bound", Pod("bound").Node("n5").Obj()}};
  Nominator n([&](std::string_view, std::string_view name) -> PodPtr {
    auto it = live.find(std::string(name));
    return it == live.end() ? nullptr : it->second;
  });
  for (const char* name : {"alive", "bound", "gone"}) {
    n.add(*Pod(name).Obj(), NominatingInfo::overrideWith("n1"));
  }
  EXPECT_EQ(Names(n.podsForNode("n1")), (std::vector<std::string>{"alive"}));
}

}  // namespace
}  // namespace sh::queue
