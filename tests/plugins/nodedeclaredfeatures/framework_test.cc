// The node-declared-features framework the plugin builds on (plugins/nodedeclaredfeatures/
// framework.h), with features of the test's own, as upstream tests it with mock features.
// Cases after upstream nodedeclaredfeatures_test.go TestPreFilter and component-helpers
// framework_test.go TestInferForPodScheduling and featureset_test.go (v1.36 / v0.36.2).
#include "plugins/nodedeclaredfeatures/framework.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::nodedeclaredfeatures::framework_test {
namespace {

bool inferTrue(const Json& /*spec*/, SpecError& /*error*/) { return true; }
bool inferFalse(const Json& /*spec*/, SpecError& /*error*/) { return false; }
bool inferMalformed(const Json& /*spec*/, SpecError& error) {
  error = SpecError{"spec.hostUsers", "a boolean"};
  return false;
}

// createMockFeature: a feature that infers `infer` for every pod, with an optional MaxVersion.
Feature mock(std::string_view name, bool infer, std::optional<Version> maxVersion = {}) {
  return Feature{name, infer ? &inferTrue : &inferFalse, maxVersion};
}

std::vector<std::string_view> infer(const Framework& f, const Version& target) {
  SpecError error;
  FeatureSet reqs = f.inferForPodScheduling(Json(), target, error);
  EXPECT_TRUE(error.empty());
  return f.unmap(reqs);
}

using Names = std::vector<std::string_view>;

// nodedeclaredfeatures_test.go TestPreFilter, at component version 1.35.0 (1.34.0 for the last).
TEST(NodeDeclaredFeaturesFrameworkTest, InferForPodScheduling) {
  struct Case {
    std::string name;
    std::vector<Feature> features;
    Version version;
    Names want;
  };
  const Version v135{1, 35, 0};
  const Version v138{1, 38, 0};
  std::vector<Case> cases = {
      {"Pod with feature requirements",
       {mock("TestFeature1", true), mock("TestFeature2", false)},
       v135,
       {"TestFeature1"}},
      {"Pod with multiple feature requirements",
       {mock("TestFeature1", true, v138), mock("TestFeature2", true, v138)},
       v135,
       {"TestFeature1", "TestFeature2"}},
      {"Pod with no requirements",
       {mock("TestFeature1", false), mock("TestFeature2", false)},
       v135,
       {}},
      {"Feature not required, version > MaxVersion",
       {mock("TestFeature1", true, Version{1, 33, 0}), mock("TestFeature2", false)},
       Version{1, 34, 0},
       {}},
      // framework_test.go TestInferForPodScheduling.
      {"feature universally available, not inferred during create",
       {mock("PodLevelResources", true, Version{1, 30, 0})},
       Version{1, 31, 0},
       {}},
      {"exceeds max version",
       {mock("PodLevelResources", true, Version{1, 30, 0})},
       Version{1, 40, 0},
       {}},
      {"MaxVersion is inclusive",
       {mock("PodLevelResources", true, Version{1, 30, 0})},
       Version{1, 30, 0},
       {"PodLevelResources"}},
      {"a patch release past MaxVersion",
       {mock("PodLevelResources", true, Version{1, 30, 0})},
       Version{1, 30, 1},
       {}},
      {"an older target",
       {mock("PodLevelResources", true, Version{1, 30, 0})},
       Version{1, 29, 9},
       {"PodLevelResources"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(infer(Framework(c.features), c.version), c.want);
  }
}

TEST(NodeDeclaredFeaturesFrameworkTest, MalformedSpecIsAnError) {
  Framework f({mock("A", true), Feature{"B", &inferMalformed, std::nullopt}});
  SpecError error;
  EXPECT_EQ(f.inferForPodScheduling(Json(), Version{1, 36, 0}, error), 0u);
  EXPECT_EQ(error.field, "spec.hostUsers");
  EXPECT_EQ(error.expected, "a boolean");

  // A feature past its MaxVersion is not asked at all.
  Framework past({Feature{"B", &inferMalformed, Version{1, 30, 0}}});
  SpecError none;
  EXPECT_EQ(past.inferForPodScheduling(Json(), Version{1, 36, 0}, none), 0u);
  EXPECT_TRUE(none.empty());
}

// ndf.New sorts the registry by name: bit i is the i-th name.
TEST(NodeDeclaredFeaturesFrameworkTest, RegistryIsSortedByName) {
  Framework f({mock("FeatureC", true), mock("FeatureA", false), mock("FeatureB", true)});
  ASSERT_EQ(f.registry().size(), 3u);
  EXPECT_EQ(f.registry()[0].name, "FeatureA");
  EXPECT_EQ(f.registry()[1].name, "FeatureB");
  EXPECT_EQ(f.registry()[2].name, "FeatureC");
  EXPECT_EQ(infer(f, Version{1, 36, 0}), (Names{"FeatureB", "FeatureC"}));
  EXPECT_EQ(f.unmap(0b101), (Names{"FeatureA", "FeatureC"}));
}

TEST(NodeDeclaredFeaturesFrameworkTest, RejectsABadRegistry) {
  EXPECT_THROW(Framework({mock("A", true), mock("A", false)}), std::invalid_argument);
  EXPECT_THROW(Framework({Feature{"A", nullptr, std::nullopt}}), std::invalid_argument);
  std::vector<Feature> many;
  std::vector<std::string> names;
  for (int i = 0; i < 65; ++i) {
    names.push_back("F" + std::to_string(100 + i));
  }
  for (const std::string& n : names) {
    many.push_back(mock(n, false));
  }
  EXPECT_THROW(Framework(std::move(many)), std::invalid_argument);
}

// featureset_test.go TestFeatureMapper (TryMap): the known features of a sorted list; unknown
// ones are skipped.
TEST(NodeDeclaredFeaturesFrameworkTest, TryMap) {
  Framework f({mock("a", true), mock("b", true), mock("c", true), mock("d", true)});
  struct Case {
    std::string name;
    Names input;
    Names want;
  };
  std::vector<Case> cases = {
      {"Empty input", {}, {}},
      {"Single valid feature", {"a"}, {"a"}},
      {"Multiple valid features", {"a", "c"}, {"a", "c"}},
      {"All features", {"a", "b", "c", "d"}, {"a", "b", "c", "d"}},
      {"Unknown feature (start)", {"0", "a"}, {"a"}},
      {"Unknown feature (middle)", {"a", "ab", "b"}, {"a", "b"}},
      {"Unknown feature (end)", {"d", "e"}, {"d"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(f.unmap(f.tryMap(c.input)), c.want);
  }
}

FeatureSet bits(std::initializer_list<int> positions) {
  FeatureSet s = 0;
  for (int i : positions) {
    s |= FeatureSet{1} << i;
  }
  return s;
}

// bitmap_test.go TestBitmap_DifferenceSubset (IsSubset; a size mismatch cannot happen with
// one FeatureSet type).
TEST(NodeDeclaredFeaturesFrameworkTest, IsSubset) {
  EXPECT_FALSE(Framework::isSubset(bits({1, 2}), bits({3, 4})));        // Disjoint sets
  EXPECT_FALSE(Framework::isSubset(bits({1, 2, 3}), bits({2, 3, 4})));  // Overlap
  EXPECT_TRUE(Framework::isSubset(bits({1, 2}), bits({1, 2})));         // Identical
  EXPECT_TRUE(Framework::isSubset(bits({1, 2}), bits({1, 2, 3})));      // Subset
  EXPECT_FALSE(Framework::isSubset(bits({1, 2, 3}), bits({1, 2})));     // Superset
  EXPECT_TRUE(Framework::isSubset(bits({}), bits({})));                 // Empty contains Empty
  EXPECT_TRUE(Framework::isSubset(bits({63}), bits({0, 63})));          // the last bit
}

}  // namespace
}  // namespace schedhost::plugins::nodedeclaredfeatures::framework_test
