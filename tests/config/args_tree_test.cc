#include "host/config/args_tree.h"

#include <set>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "host/config/toml_reader.h"

namespace sh::config::args_tree_test {
namespace {

ArgNode fromToml(std::string_view text, const std::string& path = "args") {
  Diagnostics diags;
  std::optional<TomlValue> value = parseToml(text, "a.toml", diags);
  EXPECT_TRUE(value.has_value()) << diags.str();
  return ArgNode(*value, path);
}

ArgNode fromJson(std::string_view text, const std::string& path = "args") {
  std::string error;
  std::optional<ArgNode> node = ArgNode::fromJsonText(text, path, {}, &error);
  EXPECT_TRUE(node.has_value()) << error;
  return node ? std::move(*node) : ArgNode();
}

TEST(ArgNodeTest, FromTomlKeepsLocationsPathsAndOrder) {
  const ArgNode root = fromToml(R"(zeta = 1
alpha = "x"
[scoringStrategy]
type = "MostAllocated"
resources = [ { name = "cpu", weight = 1 }, { name = "memory", weight = 2 } ]
)");
  ASSERT_TRUE(root.isObject());
  ASSERT_EQ(root.size(), 3u);
  EXPECT_EQ(root.keyAt(0), "zeta");
  EXPECT_EQ(root.keyAt(1), "alpha");
  EXPECT_EQ(root.keyAt(2), "scoringStrategy");
  const ArgNode* type = root.get("scoringStrategy")->get("type");
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(type->asString(), "MostAllocated");
  EXPECT_EQ(type->path(), "args.scoringStrategy.type");
  EXPECT_EQ(type->where().str(), "a.toml:4:8");
  const ArgNode* weight = root.get("scoringStrategy")->get("resources")->at(1)->get("weight");
  EXPECT_EQ(weight->asInt(), 2);
  EXPECT_EQ(weight->path(), "args.scoringStrategy.resources[1].weight");
  EXPECT_EQ(weight->where().line, 5);
  EXPECT_EQ(root.get("missing"), nullptr);
  EXPECT_EQ(root.at(99), nullptr);
}

TEST(ArgNodeTest, TomlScalarKinds) {
  const ArgNode root = fromToml("b = true\ni = -3\nd = 2.5\ns = \"x\"\nt = 1979-05-27\n");
  EXPECT_TRUE(root.get("b")->isBool());
  EXPECT_TRUE(root.get("b")->asBool());
  EXPECT_EQ(root.get("i")->asInt(), -3);
  EXPECT_DOUBLE_EQ(root.get("i")->asDouble(), -3.0);
  EXPECT_DOUBLE_EQ(root.get("d")->asDouble(), 2.5);
  EXPECT_EQ(root.get("s")->asString(), "x");
  EXPECT_EQ(root.get("t")->asString(), "1979-05-27");
  // Accessors of the wrong kind give zero values.
  EXPECT_EQ(root.get("s")->asInt(), 0);
  EXPECT_EQ(root.get("i")->asString(), "");
}

TEST(ArgNodeTest, FromJsonHasPathButNoLine) {
  const ArgNode root = fromJson(R"({"a": {"b c": [1, 2.5, null, "s", true]}})", "x");
  const ArgNode* list = root.get("a")->get("b c");
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(list->path(), "x.a[\"b c\"]");
  EXPECT_EQ(list->at(2)->path(), "x.a[\"b c\"][2]");
  EXPECT_TRUE(list->at(2)->isNull());
  EXPECT_FALSE(list->where().hasPosition());
  EXPECT_EQ(list->at(0)->kind(), ArgNode::Kind::kInt);
  EXPECT_EQ(list->at(1)->kind(), ArgNode::Kind::kDouble);
}

TEST(ArgNodeTest, FromJsonTextReportsErrors) {
  std::string error;
  EXPECT_FALSE(ArgNode::fromJsonText("{oops", "", {}, &error).has_value());
  EXPECT_FALSE(error.empty());
}

TEST(ArgNodeTest, ToJsonRoundTrips) {
  // Boost.JSON writes doubles in scientific notation.
  const std::string text = R"({"b":[1,2.5E0,null,"s",true],"a":{"x":-1}})";
  EXPECT_EQ(boost::json::serialize(fromJson(text).toJson()), text);
}

TEST(ArgNodeTest, MergeDefaultsDeepMergesObjectsAndReplacesArrays) {
  const ArgNode defaults = fromJson(R"({"ignoredResources": [],
    "scoringStrategy": {"type": "LeastAllocated",
      "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]},
    "hardPodAffinityWeight": 1})",
                                    "defaults");
  const ArgNode user = fromToml(R"(extra = true
hardPodAffinityWeight = 5
[scoringStrategy]
resources = [ { name = "gpu", weight = 3 } ]
)",
                                "pluginConfig[0].args");
  const ArgNode merged = mergeDefaults(defaults, user);
  EXPECT_EQ(boost::json::serialize(merged.toJson()),
            R"({"ignoredResources":[],"scoringStrategy":{"type":"LeastAllocated",)"
            R"("resources":[{"name":"gpu","weight":3}]},"hardPodAffinityWeight":5,)"
            R"("extra":true})");
  // User values keep their locations; default-only ones get the user's paths and file.
  EXPECT_EQ(merged.path(), "pluginConfig[0].args");
  EXPECT_EQ(merged.get("hardPodAffinityWeight")->where().str(), "a.toml:2:25");
  const ArgNode* type = merged.get("scoringStrategy")->get("type");
  EXPECT_EQ(type->path(), "pluginConfig[0].args.scoringStrategy.type");
  EXPECT_EQ(type->where().str(), "a.toml");
  EXPECT_EQ(merged.get("scoringStrategy")->get("resources")->at(0)->get("name")->path(),
            "pluginConfig[0].args.scoringStrategy.resources[0].name");
  EXPECT_EQ(merged.get("ignoredResources")->path(), "pluginConfig[0].args.ignoredResources");
}

TEST(ArgNodeTest, MergeScalarOverObjectReplacesWhole) {
  const ArgNode merged = mergeDefaults(fromJson(R"({"a": {"b": 1}})"), fromJson(R"({"a": 2})"));
  EXPECT_EQ(boost::json::serialize(merged.toJson()), R"({"a":2})");
}

TEST(ArgNodeTest, SameValueIgnoresLocations) {
  const ArgNode a = fromToml("x = 1\ny = [\"a\"]\n");
  const ArgNode b = fromJson(R"({"x": 1.0, "y": ["a"]})");
  const ArgNode c = fromJson(R"({"y": ["a"], "x": 1})");
  EXPECT_TRUE(a.sameValue(b));
  EXPECT_FALSE(a.sameValue(c));  // member order differs
  EXPECT_FALSE(a.sameValue(fromJson(R"({"x": 2, "y": ["a"]})")));
}

TEST(ArgNodeTest, NodesKeepTheirAddressesWhenTheRootMoves) {
  ArgNode root = fromJson(R"({"a": {"b": [1, 2]}, "s": "short"})");
  const ArgNode* b = root.get("a")->get("b");
  const std::string_view key = root.keyAt(1);
  const char* keyData = key.data();
  const ArgNode moved = std::move(root);
  EXPECT_EQ(moved.get("a")->get("b"), b);
  EXPECT_EQ(moved.keyAt(1).data(), keyData);
  EXPECT_EQ(ArgNode::fromShArgs(b->asShArgs()), b);
}

TEST(ArgNodeTest, CloneIsDeepAndCloneAtRebases) {
  const ArgNode root = fromJson(R"({"a": [{"b": 1}]})", "d");
  const ArgNode copy = root.clone();
  EXPECT_TRUE(copy.sameValue(root));
  EXPECT_NE(copy.get("a"), root.get("a"));
  const ArgNode rebased = root.cloneAt("p.args", SourceLocation{"f.toml", 0, 0});
  EXPECT_EQ(rebased.get("a")->at(0)->get("b")->path(), "p.args.a[0].b");
  EXPECT_EQ(rebased.get("a")->where().file, "f.toml");
}

}  // namespace
}  // namespace sh::config::args_tree_test
