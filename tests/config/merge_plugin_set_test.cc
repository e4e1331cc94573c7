// mergePluginSet, modelled on upstream's apis/config/v1/default_plugins_test.go
// (TestMergePlugins).
#include "host/config/profile_resolver.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/config/test_catalog.h"

namespace sh::config::merge_plugin_set_test {
namespace {

using Names = std::vector<std::string>;

// "A" or "A:3" -> a PluginRef.
PluginRef ref(const std::string& spec) {
  PluginRef r;
  const auto colon = spec.find(':');
  r.name = spec.substr(0, colon);
  if (colon != std::string::npos) {
    r.weight = std::stoll(spec.substr(colon + 1));
  }
  return r;
}

std::vector<PluginRef> refs(const Names& specs) {
  std::vector<PluginRef> out;
  for (const std::string& spec : specs) {
    out.push_back(ref(spec));
  }
  return out;
}

Names specs(const std::vector<PluginRef>& list) {
  Names out;
  for (const PluginRef& r : list) {
    out.push_back(r.weight == 0 ? r.name : r.name + ":" + std::to_string(r.weight));
  }
  return out;
}

struct MergeCase {
  std::string name;
  Names defaultEnabled;
  Names defaultDisabled;
  Names customEnabled;
  Names customDisabled;
  Names wantEnabled;
  Names wantDisabled;
};

class MergePluginSetTest : public ::testing::TestWithParam<MergeCase> {};

TEST_P(MergePluginSetTest, Merges) {
  const MergeCase& c = GetParam();
  const PluginSet merged =
      mergePluginSet(PluginSet{refs(c.defaultEnabled), refs(c.defaultDisabled)},
                     PluginSet{refs(c.customEnabled), refs(c.customDisabled)});
  EXPECT_EQ(specs(merged.enabled), c.wantEnabled);
  EXPECT_EQ(specs(merged.disabled), c.wantDisabled);
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, MergePluginSetTest,
    ::testing::Values(
        MergeCase{"AppendCustomPlugin", {"D1", "D2"}, {}, {"C1"}, {}, {"D1", "D2", "C1"}, {}},
        MergeCase{"InsertAfterDefaultPlugins",
                  {"D1", "D2"},
                  {},
                  {"C1", "D2"},
                  {"D2"},
                  {"D1", "C1", "D2"},
                  {"D2"}},
        MergeCase{"InsertBeforeAllPlugins",
                  {"D1", "D2"},
                  {},
                  {"C1", "D1", "D2"},
                  {"*"},
                  {"C1", "D1", "D2"},
                  {"*"}},
        MergeCase{
            "ReorderDefaultPlugins", {"D1", "D2"}, {}, {"D2", "D1"}, {"*"}, {"D2", "D1"}, {"*"}},
        MergeCase{"ApplyNilCustomPlugin", {"D1", "D2"}, {}, {}, {}, {"D1", "D2"}, {}},
        MergeCase{"CustomPluginOverrideDefaultPlugin",
                  {"D1:1", "D2:1"},
                  {},
                  {"D1:2"},
                  {},
                  {"D1:2", "D2:1"},
                  {}},
        MergeCase{"OrderPreserveAfterOverride",
                  {"D1:1", "D2:1", "D3:1"},
                  {},
                  {"D2:2", "D1:2"},
                  {},
                  {"D1:2", "D2:2", "D3:1"},
                  {}},
        MergeCase{"RepeatedCustomPlugin",
                  {"D1:1", "D2:1", "D3:1"},
                  {},
                  {"D2:2", "C1", "D2:4"},
                  {},
                  {"D1:1", "D2:4", "D3:1", "D2:2", "C1"},
                  {}},
        MergeCase{
            "DisabledDefaultPlugin", {"D1", "D2", "D3"}, {}, {}, {"D2"}, {"D1", "D3"}, {"D2"}},
        MergeCase{"DisableAllThenEnableTwo",
                  {"D1:3", "D2:2", "D3:1"},
                  {},
                  {"D3:2", "C1:3"},
                  {"*"},
                  {"D3:2", "C1:3"},
                  {"*"}},
        MergeCase{
            "DefaultDisabledKeptAfterCustom", {"D1"}, {"D2"}, {}, {"D3"}, {"D1"}, {"D3", "D2"}},
        MergeCase{"EnabledBeatsDisabledAtSameLevel",
                  {"D1", "D2"},
                  {},
                  {"D2:5"},
                  {"D2"},
                  {"D1", "D2:5"},
                  {"D2"}}),
    [](const ::testing::TestParamInfo<MergeCase>& p) { return p.param.name; });

}  // namespace
}  // namespace sh::config::merge_plugin_set_test
