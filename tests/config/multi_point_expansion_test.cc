// MultiPoint expansion, modelled on upstream's framework/runtime/framework_test.go
// (TestNewFrameworkMultiPointExpansion).
#include "host/config/profile_resolver.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/config/test_catalog.h"

namespace sh::config::multi_point_expansion_test {
namespace {

using testing::frameworkCatalog;
using testing::resolveText;
using Names = std::vector<std::string>;

// The framework catalog has none of the default plugins, so the default set is empty as in
// upstream's test.

struct ExpansionCase {
  std::string name;
  std::string toml;
  std::vector<std::pair<ExtensionPoint, Names>> want;
  std::vector<std::pair<std::string, int64_t>> wantWeights;
  std::string wantError;  // a substring; empty for none
};

class MultiPointExpansionTest : public ::testing::TestWithParam<ExpansionCase> {};

TEST_P(MultiPointExpansionTest, Expands) {
  const ExpansionCase& c = GetParam();
  Diagnostics diags;
  const ResolvedProfile p = resolveText(c.toml, frameworkCatalog(), diags);
  if (!c.wantError.empty()) {
    ASSERT_TRUE(diags.hasErrors());
    EXPECT_NE(diags.str().find(c.wantError), std::string::npos) << diags.str();
    return;
  }
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  for (const auto& [point, names] : c.want) {
    EXPECT_EQ(p.names(point), names) << typeName(point);
  }
  for (const auto& [plugin, weight] : c.wantWeights) {
    EXPECT_EQ(p.scoreWeight(plugin), weight) << plugin;
  }
}

constexpr ExtensionPoint kQs = ExtensionPoint::kQueueSort;
constexpr ExtensionPoint kPf = ExtensionPoint::kPreFilter;
constexpr ExtensionPoint kF = ExtensionPoint::kFilter;
constexpr ExtensionPoint kPs = ExtensionPoint::kPreScore;
constexpr ExtensionPoint kS = ExtensionPoint::kScore;
constexpr ExtensionPoint kB = ExtensionPoint::kBind;
constexpr ExtensionPoint kPb = ExtensionPoint::kPostBind;

INSTANTIATE_TEST_SUITE_P(
    Upstream, MultiPointExpansionTest,
    ::testing::Values(
        ExpansionCase{"PluginExpansion",
                      "[plugins.multiPoint]\nenabled = [ { name = \"TestPlugin\", weight = 5 } ]",
                      {{kQs, {"TestPlugin"}},
                       {kPf, {"TestPlugin"}},
                       {kS, {"TestPlugin"}},
                       {kB, {"TestPlugin"}},
                       {kPb, {"TestPlugin"}}},
                      {{"TestPlugin", 5}},
                      ""},
        ExpansionCase{"DisableAtSomePoints",
                      "[plugins.multiPoint]\nenabled = [ { name = \"TestPlugin\" } ]\n"
                      "[plugins.preScore]\ndisabled = [ { name = \"TestPlugin\" } ]\n"
                      "[plugins.score]\ndisabled = [ { name = \"TestPlugin\" } ]\n",
                      {{kF, {"TestPlugin"}}, {kPs, {}}, {kS, {}}},
                      {},
                      ""},
        ExpansionCase{"MultipleMultiPointPlugins",
                      "[plugins.multiPoint]\nenabled = [ { name = \"TestPlugin\" },"
                      " { name = \"ScorePlugin\", weight = 2 } ]",
                      {{kS, {"TestPlugin", "ScorePlugin"}}, {kF, {"TestPlugin"}}},
                      {{"TestPlugin", 1}, {"ScorePlugin", 2}},
                      ""},
        ExpansionCase{"OverrideMultiPointWeights",
                      "[plugins.multiPoint]\nenabled = [ { name = \"TestPlugin\", weight = 5 },"
                      " { name = \"ScorePlugin\", weight = 6 } ]\n"
                      "[plugins.score]\nenabled = [ { name = \"ScorePlugin\", weight = 3 },"
                      " { name = \"TestPlugin\", weight = 4 } ]\n",
                      {{kS, {"ScorePlugin", "TestPlugin"}}},
                      {{"TestPlugin", 4}, {"ScorePlugin", 3}},
                      ""},
        ExpansionCase{"DisableAndEnableWithStar",
                      "[plugins.multiPoint]\nenabled = [ { name = \"TestPlugin\" } ]\n"
                      "[plugins.queueSort]\ndisabled = [ { name = \"*\" } ]\n"
                      "enabled = [ { name = \"QueueSortPlugin\" } ]\n"
                      "[plugins.bind]\ndisabled = [ { name = \"*\" } ]\n"
                      "enabled = [ { name = \"BindPlugin\" } ]\n",
                      {{kQs, {"QueueSortPlugin"}}, {kB, {"BindPlugin"}}, {kF, {"TestPlugin"}}},
                      {},
                      ""},
        ExpansionCase{"ReorderSpecificPointTakesPrecedence",
                      "[plugins.multiPoint]\nenabled = [ { name = \"ScorePlugin\" },"
                      " { name = \"TestPlugin\" } ]\n"
                      "[plugins.score]\nenabled = [ { name = \"TestPlugin\" } ]\n",
                      {{kS, {"TestPlugin", "ScorePlugin"}}},
                      {},
                      ""},
        ExpansionCase{"ReorderSpecificPointOnly",
                      "[plugins.multiPoint]\nenabled = [ { name = \"ScorePlugin\" },"
                      " { name = \"QueueSortPlugin\" }, { name = \"BindPlugin\" } ]\n"
                      "[plugins.score]\nenabled = [ { name = \"TestPlugin\" } ]\n",
                      {{kS, {"ScorePlugin", "TestPlugin"}}, {kF, {}}},
                      {},
                      ""},
        ExpansionCase{"OverridesThenMultiPointThenOthers",
                      "[plugins.multiPoint]\nenabled = [ { name = \"ScorePlugin\" },"
                      " { name = \"QueueSortPlugin\" }, { name = \"BindPlugin\" },"
                      " { name = \"FilterPlugin\" } ]\n"
                      "[plugins.filter]\nenabled = [ { name = \"TestPlugin\" },"
                      " { name = \"FilterPlugin\" } ]\n",
                      {{kF, {"FilterPlugin", "TestPlugin"}}},
                      {},
                      ""},
        ExpansionCase{"DuplicateMultiPointPlugins",
                      "[plugins.multiPoint]\nenabled = [ { name = \"TestPlugin\" },"
                      " { name = \"TestPlugin\" } ]",
                      {},
                      {},
                      "plugin \"TestPlugin\" already registered as \"PreEnqueuePlugin\""},
        ExpansionCase{"DuplicateAtSpecificPoint",
                      "[plugins.multiPoint]\nenabled = [ { name = \"TestPlugin\" } ]\n"
                      "[plugins.preFilter]\nenabled = [ { name = \"TestPlugin\" },"
                      " { name = \"TestPlugin\" } ]\n",
                      {},
                      {},
                      "plugin \"TestPlugin\" already registered as \"PreFilterPlugin\""},
        ExpansionCase{"UnknownMultiPointPlugin",
                      "[plugins.multiPoint]\nenabled = [ { name = \"Missing\" } ]",
                      {},
                      {},
                      "plugin \"Missing\" does not exist"}),
    [](const ::testing::TestParamInfo<ExpansionCase>& p) { return p.param.name; });

}  // namespace
}  // namespace sh::config::multi_point_expansion_test
