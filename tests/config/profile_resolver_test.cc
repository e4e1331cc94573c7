// Profile resolution over the default set: custom profiles, errors, args, and the checks across
// profiles. See merge_plugin_set_test.cc and multi_point_expansion_test.cc for the table tests
// modelled on upstream's.
#include "host/config/profile_resolver.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <schedhost/plugin.h>

#include "tests/config/test_catalog.h"

namespace sh::config::profile_resolver_test {
namespace {

using testing::frameworkCatalog;
using testing::fullUpstreamCatalog;
using testing::resolveText;
using testing::upstreamCatalog;
using Names = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// The default profile

TEST(ResolveDefaultsTest, ShippedPluginsReproduceUpstreamDefaultsLessMissing) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText("", upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(p.schedulerName, "default-scheduler");
  EXPECT_EQ(p.names(ExtensionPoint::kPreEnqueue), (Names{"SchedulingGates", "DefaultPreemption"}));
  EXPECT_EQ(p.names(ExtensionPoint::kQueueSort), (Names{"PrioritySort"}));
  EXPECT_EQ(p.names(ExtensionPoint::kPreFilter),
            (Names{"NodeAffinity", "NodePorts", "NodeResourcesFit", "PodTopologySpread",
                   "InterPodAffinity"}));
  EXPECT_EQ(p.names(ExtensionPoint::kFilter),
            (Names{"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
                   "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity"}));
  EXPECT_EQ(p.names(ExtensionPoint::kPostFilter), (Names{"DefaultPreemption"}));
  EXPECT_EQ(p.names(ExtensionPoint::kPreScore),
            (Names{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread",
                   "InterPodAffinity", "NodeResourcesBalancedAllocation"}));
  EXPECT_EQ(p.names(ExtensionPoint::kScore),
            (Names{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread",
                   "InterPodAffinity", "NodeResourcesBalancedAllocation", "ImageLocality"}));
  EXPECT_TRUE(p.names(ExtensionPoint::kReserve).empty());
  EXPECT_TRUE(p.names(ExtensionPoint::kPermit).empty());
  EXPECT_TRUE(p.names(ExtensionPoint::kPreBind).empty());
  EXPECT_EQ(p.names(ExtensionPoint::kBind), (Names{"DefaultBinder"}));
  EXPECT_TRUE(p.names(ExtensionPoint::kPostBind).empty());
  // Default Score weights (upstream apis/config/v1/default_plugins.go: getDefaultPlugins).
  EXPECT_EQ(p.scoreWeight("TaintToleration"), 3);
  EXPECT_EQ(p.scoreWeight("NodeAffinity"), 2);
  EXPECT_EQ(p.scoreWeight("NodeResourcesFit"), 1);
  EXPECT_EQ(p.scoreWeight("PodTopologySpread"), 2);
  EXPECT_EQ(p.scoreWeight("InterPodAffinity"), 2);
  EXPECT_EQ(p.scoreWeight("NodeResourcesBalancedAllocation"), 1);
  EXPECT_EQ(p.scoreWeight("ImageLocality"), 1);
  EXPECT_EQ(p.plugins.size(), 14u);
}

TEST(ResolveDefaultsTest, FullCatalogMatchesUpstreamTable) {
  // Upstream's default list (apis/config/v1/default_plugins.go) expanded per extension point.
  Diagnostics diags;
  const ResolvedProfile p = resolveText("", fullUpstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(p.names(ExtensionPoint::kPreEnqueue),
            (Names{"SchedulingGates", "DynamicResources", "DefaultPreemption"}));
  EXPECT_EQ(p.names(ExtensionPoint::kPreFilter),
            (Names{"NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions",
                   "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
                   "InterPodAffinity", "DynamicResources", "NodeDeclaredFeatures"}));
  EXPECT_EQ(p.names(ExtensionPoint::kFilter),
            (Names{"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
                   "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
                   "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources",
                   "NodeDeclaredFeatures"}));
  EXPECT_EQ(p.names(ExtensionPoint::kPostFilter), (Names{"DynamicResources", "DefaultPreemption"}));
  EXPECT_EQ(p.names(ExtensionPoint::kPreScore),
            (Names{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding",
                   "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation"}));
  EXPECT_EQ(p.names(ExtensionPoint::kScore),
            (Names{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding",
                   "PodTopologySpread", "InterPodAffinity", "DynamicResources",
                   "NodeResourcesBalancedAllocation", "ImageLocality"}));
  EXPECT_EQ(p.scoreWeight("VolumeBinding"), 1);
  EXPECT_EQ(p.scoreWeight("DynamicResources"), 2);
  EXPECT_EQ(p.names(ExtensionPoint::kReserve), (Names{"VolumeBinding", "DynamicResources"}));
  EXPECT_EQ(p.names(ExtensionPoint::kPreBind), (Names{"VolumeBinding", "DynamicResources"}));
  EXPECT_EQ(p.names(ExtensionPoint::kBind), (Names{"DefaultBinder"}));
}

// ---------------------------------------------------------------------------------------------
// Custom profiles over the default set

TEST(ResolveTest, DisableAllScoreThenEnableTwo) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText(R"(
[plugins.score]
disabled = [ { name = "*" } ]
enabled = [ { name = "NodeResourcesFit", weight = 2 }, { name = "ImageLocality", weight = 3 } ]
)",
                                        upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(p.names(ExtensionPoint::kScore), (Names{"NodeResourcesFit", "ImageLocality"}));
  EXPECT_EQ(p.scoreWeight("NodeResourcesFit"), 2);
  EXPECT_EQ(p.scoreWeight("ImageLocality"), 3);
  // Other points keep the MultiPoint defaults.
  EXPECT_EQ(p.names(ExtensionPoint::kPreScore).size(), 6u);
}

TEST(ResolveTest, ReplaceInPlaceKeepsDefaultPositionWithCustomWeight) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText(R"(
[plugins.multiPoint]
enabled = [ { name = "NodeAffinity", weight = 7 } ]
)",
                                        upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(p.names(ExtensionPoint::kScore),
            (Names{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread",
                   "InterPodAffinity", "NodeResourcesBalancedAllocation", "ImageLocality"}));
  EXPECT_EQ(p.scoreWeight("NodeAffinity"), 7);
}

TEST(ResolveTest, PerPointWeightBeatsMultiPointWeight) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText(R"(
[plugins.score]
enabled = [ { name = "TaintToleration", weight = 9 } ]
)",
                                        upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(p.scoreWeight("TaintToleration"), 9);
  // An explicit listing at the point is an override: it keeps its place at the front.
  EXPECT_EQ(p.names(ExtensionPoint::kScore).front(), "TaintToleration");
  EXPECT_EQ(p.names(ExtensionPoint::kScore).size(), 7u);
}

TEST(ResolveTest, OverrideMovesPluginToFront) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText(R"(
[plugins.score]
enabled = [ { name = "ImageLocality", weight = 4 } ]
)",
                                        upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(p.names(ExtensionPoint::kScore),
            (Names{"ImageLocality", "TaintToleration", "NodeAffinity", "NodeResourcesFit",
                   "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation"}));
  EXPECT_EQ(p.scoreWeight("ImageLocality"), 4);
}

TEST(ResolveTest, WeightZeroBecomesOne) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText(R"(
[plugins.multiPoint]
enabled = [ { name = "TaintToleration", weight = 0 } ]
)",
                                        upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(p.scoreWeight("TaintToleration"), 1);
}

TEST(ResolveTest, DisabledAtOnePointOnly) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText(R"(
[plugins.preScore]
disabled = [ { name = "NodeAffinity" } ]
[plugins.filter]
disabled = [ { name = "*" } ]
enabled = [ { name = "NodeName" } ]
)",
                                        upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(p.names(ExtensionPoint::kPreScore),
            (Names{"TaintToleration", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity",
                   "NodeResourcesBalancedAllocation"}));
  EXPECT_EQ(p.names(ExtensionPoint::kFilter), (Names{"NodeName"}));
  EXPECT_NE(p.plugin("NodeAffinity"), nullptr);  // still at PreFilter, Filter, Score
}

TEST(ResolveTest, DisabledInMultiPointRemovesEverywhere) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText(R"(
[plugins.multiPoint]
disabled = [ { name = "ImageLocality" }, { name = "TaintToleration" } ]
)",
                                        upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(p.names(ExtensionPoint::kScore),
            (Names{"NodeAffinity", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity",
                   "NodeResourcesBalancedAllocation"}));
  EXPECT_EQ(p.plugin("TaintToleration"), nullptr);
  EXPECT_EQ(p.plugin("ImageLocality"), nullptr);
}

TEST(ResolveTest, UnknownPluginIsErrorWithLocation) {
  Diagnostics diags;
  resolveText("[plugins.filter]\nenabled = [ { name = \"NoSuch\" } ]\n", upstreamCatalog(), diags);
  ASSERT_EQ(diags.errorCount(), 1u) << diags.str();
  EXPECT_EQ(diags.items()[0].str(),
            "p.toml:2:13: plugins.filter.enabled[0].name: plugin \"NoSuch\" does not exist");
}

TEST(ResolveTest, PluginAtPointItDoesNotImplement) {
  Diagnostics diags;
  resolveText("[plugins.score]\nenabled = [ { name = \"NodeName\" } ]\n", upstreamCatalog(), diags);
  ASSERT_EQ(diags.errorCount(), 1u) << diags.str();
  EXPECT_EQ(diags.items()[0].message, "plugin \"NodeName\" does not extend ScorePlugin");
}

TEST(ResolveTest, DuplicateAtPoint) {
  Diagnostics diags;
  resolveText("[plugins.filter]\nenabled = [ { name = \"NodeName\" }, { name = \"NodeName\" } ]\n",
              upstreamCatalog(), diags);
  ASSERT_EQ(diags.errorCount(), 1u) << diags.str();
  EXPECT_EQ(diags.items()[0].message, "plugin \"NodeName\" already registered as \"FilterPlugin\"");
  EXPECT_EQ(diags.items()[0].key, "plugins.filter.enabled[1].name");
}

TEST(ResolveTest, DuplicateInMultiPointReportedOnce) {
  Diagnostics diags;
  resolveText(R"(
[plugins.multiPoint]
disabled = [ { name = "*" } ]
enabled = [ { name = "PrioritySort" }, { name = "DefaultBinder" },
            { name = "NodeResourcesFit" }, { name = "NodeResourcesFit" } ]
)",
              upstreamCatalog(), diags);
  ASSERT_EQ(diags.errorCount(), 1u) << diags.str();
  EXPECT_EQ(diags.items()[0].message,
            "plugin \"NodeResourcesFit\" already registered as \"PreFilterPlugin\"");
}

TEST(ResolveTest, MissingQueueSortAndBind) {
  Diagnostics diags;
  resolveText(R"(
schedulerName = "x"
[plugins.queueSort]
disabled = [ { name = "*" } ]
[plugins.bind]
disabled = [ { name = "*" } ]
)",
              upstreamCatalog(), diags);
  ASSERT_EQ(diags.errorCount(), 2u) << diags.str();
  EXPECT_EQ(diags.items()[0].str(),
            "p.toml:2:17: schedulerName: exactly one queueSort plugin is required for profile "
            "\"x\", got 0");
  EXPECT_EQ(diags.items()[1].message, "at least one bind plugin is required for profile \"x\"");
}

TEST(ResolveTest, TwoQueueSortPlugins) {
  Diagnostics diags;
  resolveText(
      "[plugins.queueSort]\nenabled = [ { name = \"TestPlugin\" } ]\n"
      "[plugins.multiPoint]\nenabled = [ { name = \"QueueSortPlugin\" },"
      " { name = \"BindPlugin\" } ]\n",
      frameworkCatalog(), diags);
  ASSERT_EQ(diags.errorCount(), 1u) << diags.str();
  EXPECT_EQ(diags.items()[0].message,
            "exactly one queueSort plugin is required for profile \"default-scheduler\", got 2: "
            "\"QueueSortPlugin\", \"TestPlugin\"");
}

TEST(ResolveTest, ScoreWeightOverflow) {
  Diagnostics diags;
  resolveText(R"(
[plugins.score]
enabled = [ { name = "ImageLocality", weight = 50000000000000000 },
            { name = "NodeAffinity", weight = 50000000000000000 } ]
)",
              upstreamCatalog(), diags);
  ASSERT_EQ(diags.errorCount(), 1u) << diags.str();
  EXPECT_EQ(diags.items()[0].message, "total score of Score plugins could overflow");
  EXPECT_EQ(diags.items()[0].key, "plugins.score.enabled[1].weight");
}

TEST(ResolveTest, CollectsEveryProblem) {
  Diagnostics diags;
  resolveText(R"(
[plugins.filter]
enabled = [ { name = "Nope1" }, { name = "ImageLocality" } ]
[plugins.score]
enabled = [ { name = "Nope2" } ]
)",
              upstreamCatalog(), diags);
  EXPECT_EQ(diags.errorCount(), 3u) << diags.str();
}

TEST(ResolveTest, DisablingUnknownPluginIsFine) {
  Diagnostics diags;
  resolveText("[plugins.multiPoint]\ndisabled = [ { name = \"VolumeBinding\" } ]\n",
              upstreamCatalog(), diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
}

// ---------------------------------------------------------------------------------------------
// Args

TEST(ResolveArgsTest, DefaultsMergedUnderUserArgs) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText(R"(
[[pluginConfig]]
name = "NodeResourcesFit"
[pluginConfig.args.scoringStrategy]
type = "MostAllocated"
)",
                                        upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  const ArgNode* args = p.args("NodeResourcesFit");
  ASSERT_NE(args, nullptr);
  const ArgNode* type = args->get("scoringStrategy")->get("type");
  EXPECT_EQ(type->asString(), "MostAllocated");
  EXPECT_EQ(type->path(), "pluginConfig[0].args.scoringStrategy.type");
  EXPECT_EQ(type->where().str(), "p.toml:5:8");
  const ArgNode* resources = args->get("scoringStrategy")->get("resources");
  ASSERT_NE(resources, nullptr);
  EXPECT_EQ(resources->size(), 2u);
  EXPECT_EQ(resources->path(), "pluginConfig[0].args.scoringStrategy.resources");
  EXPECT_EQ(resources->where().str(), "p.toml");
  EXPECT_NE(args->get("ignoredResources"), nullptr);
}

TEST(ResolveArgsTest, DefaultsOnlyWhenNotConfigured) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText("", upstreamCatalog(), diags);
  const ArgNode* args = p.args("InterPodAffinity");
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(args->get("hardPodAffinityWeight")->asInt(), 1);
  EXPECT_EQ(args->path(), "pluginConfig[InterPodAffinity].args");
  const ArgNode* none = p.args("NodeName");
  ASSERT_NE(none, nullptr);
  EXPECT_TRUE(none->isNull());
}

TEST(ResolveArgsTest, ConfigForDisabledPluginIsIgnored) {
  Diagnostics diags;
  const ResolvedProfile p = resolveText(R"(
[plugins.multiPoint]
disabled = [ { name = "ImageLocality" } ]
[[pluginConfig]]
name = "ImageLocality"
args = { foo = 1 }
)",
                                        upstreamCatalog(), diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  EXPECT_EQ(p.args("ImageLocality"), nullptr);
}

// Upstream never reads args under a name its registry lacks; a misspelt name would lose its
// args without a word, so it is refused, naming the file, the entry, the profile and the plugin.
TEST(ResolveArgsTest, ConfigForAPluginThatDoesNotExistIsAnError) {
  Diagnostics diags;
  resolveText(R"(schedulerName = "batch"
[[pluginConfig]]
name = "ImageLocality"
[[pluginConfig]]
name = "NodeResourceFit"
args = { scoringStrategy = { type = "MostAllocated" } }
)",
              upstreamCatalog(), diags);
  ASSERT_EQ(diags.errorCount(), 1u) << diags.str();
  EXPECT_EQ(diags.items()[0].str(),
            "p.toml:5:8: pluginConfig[1].name: pluginConfig for plugin \"NodeResourceFit\" in "
            "profile \"batch\": plugin does not exist");
}

TEST(ResolveArgsTest, InvalidDefaultArgsJsonIsReported) {
  StaticCatalog catalog(upstreamCatalog().entries());
  catalog.add({"Broken", SH_POINT_FILTER, "{not json"});
  Diagnostics diags;
  resolveText("[plugins.filter]\nenabled = [ { name = \"Broken\" } ]\n", catalog, diags);
  ASSERT_EQ(diags.errorCount(), 1u) << diags.str();
  EXPECT_NE(diags.items()[0].message.find("plugin \"Broken\" has invalid default args"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Across profiles

TEST(ValidateProfilesTest, QueueSortMustMatch) {
  Diagnostics diags;
  std::vector<ResolvedProfile> profiles;
  profiles.push_back(
      resolve(testing::profileFrom("schedulerName = \"a\"\n"), frameworkCatalog(), diags));
  profiles.push_back(resolve(testing::profileFrom(R"(schedulerName = "a"
[plugins.multiPoint]
enabled = [ { name = "QueueSortPlugin" }, { name = "BindPlugin" } ]
)"),
                             frameworkCatalog(), diags));
  profiles.push_back(resolve(testing::profileFrom(R"(schedulerName = "b"
[plugins.multiPoint]
enabled = [ { name = "TestPlugin" } ]
)"),
                             frameworkCatalog(), diags));
  // The first profile has no queueSort plugin at all: reported by resolve, skipped here.
  ASSERT_EQ(diags.errorCount(), 2u) << diags.str();
  validateProfiles(profiles, diags);
  ASSERT_EQ(diags.errorCount(), 3u) << diags.str();
  EXPECT_EQ(diags.items()[2].message,
            "queueSort plugin \"TestPlugin\" of profile \"b\" differs from \"QueueSortPlugin\" "
            "of profile \"a\"; all profiles must use the same queueSort plugin");
}

TEST(ValidateProfilesTest, SameDefaultsPass) {
  Diagnostics diags;
  std::vector<ResolvedProfile> profiles;
  profiles.push_back(
      resolve(testing::profileFrom("schedulerName = \"a\""), upstreamCatalog(), diags));
  profiles.push_back(
      resolve(testing::profileFrom("schedulerName = \"b\""), upstreamCatalog(), diags));
  validateProfiles(profiles, diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
}

}  // namespace
}  // namespace sh::config::profile_resolver_test
