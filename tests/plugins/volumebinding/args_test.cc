// VolumeBindingArgs: defaults and upstream's ValidateVolumeBindingArgsWithOptions with
// StorageCapacityScoring off (v1.36).
#include <gtest/gtest.h>

#include <string>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::args_test {
namespace {

TEST(VolumeBindingArgsTest, DefaultsAndValidValues) {
  EXPECT_EQ(argsError("VolumeBinding", ""), "");
  EXPECT_EQ(argsError("VolumeBinding", R"({"bindTimeoutSeconds":0})"), "");
  EXPECT_EQ(argsError("VolumeBinding", R"({"bindTimeoutSeconds":300})"), "");
  EXPECT_EQ(argsError("VolumeBinding", R"({"shape":null})"), "");
}

TEST(VolumeBindingArgsTest, NegativeTimeout) {
  EXPECT_TRUE(contains(argsError("VolumeBinding", R"({"bindTimeoutSeconds":-1})"),
                       "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should "
                       "not be a negative value"));
  EXPECT_TRUE(contains(argsError("VolumeBinding", R"({"bindTimeoutSeconds":"10"})"),
                       "bindTimeoutSeconds: Invalid value: expected an integer"));
}

// With the gate off a shape, even an empty one, is refused.
TEST(VolumeBindingArgsTest, ShapeNeedsStorageCapacityScoring) {
  EXPECT_TRUE(contains(
      argsError("VolumeBinding",
                R"({"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]})"),
      "shape: Invalid value: []config.UtilizationShapePoint{config.UtilizationShapePoint{"
      "Utilization:0, Score:0}, config.UtilizationShapePoint{Utilization:100, Score:10}}: "
      "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"));
  EXPECT_TRUE(contains(argsError("VolumeBinding", R"({"shape":[]})"),
                       "shape: Invalid value: []config.UtilizationShapePoint{}: unexpected field"));
}

TEST(VolumeBindingArgsTest, UnknownField) {
  EXPECT_TRUE(contains(argsError("VolumeBinding", R"({"bindTimeout":5})"),
                       "unknown field \"bindTimeout\""));
}

}  // namespace
}  // namespace schedhost::testing::args_test
