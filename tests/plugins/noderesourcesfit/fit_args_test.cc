// NodeResourcesFitArgs: defaulting and validation, with upstream's messages naming the field
// (validation_pluginargs_test.go, our own cases).
#include <gtest/gtest.h>

#include <string>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::fit_args_test {
namespace {

constexpr char kFit[] = "NodeResourcesFit";

TEST(FitArgsTest, ValidArgs) {
  EXPECT_EQ(argsError(kFit, ""), "");
  EXPECT_EQ(argsError(kFit, R"({"scoringStrategy": {"type": "MostAllocated"}})"), "");
  EXPECT_EQ(argsError(kFit, R"({"ignoredResources": ["example.com/foo"],
                               "ignoredResourceGroups": ["example.com"]})"),
            "");
  EXPECT_EQ(argsError(kFit, R"({"scoringStrategy": {
                                 "type": "RequestedToCapacityRatio",
                                 "resources": [{"name": "cpu", "weight": 100},
                                               {"name": "example.com/gpu"}],
                                 "requestedToCapacityRatio": {"shape": [
                                   {"utilization": 0, "score": 0},
                                   {"utilization": 100, "score": 10}]}}})"),
            "");
}

TEST(FitArgsTest, UnsupportedStrategy) {
  EXPECT_TRUE(contains(argsError(kFit, R"({"scoringStrategy": {"type": "Invalid"}})"),
                       "scoringStrategy.type: Unsupported value: \"Invalid\": supported values: "
                       "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""));
}

TEST(FitArgsTest, ResourceWeights) {
  std::string err = argsError(kFit, R"({"scoringStrategy": {"type": "LeastAllocated",
      "resources": [{"name": "cpu", "weight": 101}, {"name": "memory", "weight": -1}]}})");
  EXPECT_TRUE(contains(err,
                       "scoringStrategy.resources[0].weight: Invalid value: 101: resource "
                       "weight of cpu not in valid range (0, 100]"));
  EXPECT_TRUE(contains(err,
                       "scoringStrategy.resources[1].weight: Invalid value: -1: resource "
                       "weight of memory not in valid range (0, 100]"));
  // A weight of 0 is defaulted to 1 before validation.
  EXPECT_EQ(argsError(kFit, R"({"scoringStrategy": {"type": "MostAllocated",
      "resources": [{"name": "cpu", "weight": 0}]}})"),
            "");
}

TEST(FitArgsTest, RequestedToCapacityRatioShape) {
  EXPECT_TRUE(
      contains(argsError(kFit, R"({"scoringStrategy": {"type": "RequestedToCapacityRatio"}})"),
               "requestedToCapacityRatio: Required value: must be specified when type is "
               "RequestedToCapacityRatio"));
  EXPECT_TRUE(contains(argsError(kFit, R"({"scoringStrategy": {"type": "MostAllocated",
      "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}]}}})"),
                       "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when "
                       "type is not RequestedToCapacityRatio"));
  EXPECT_TRUE(contains(argsError(kFit, R"({"scoringStrategy": {"type": "RequestedToCapacityRatio",
      "requestedToCapacityRatio": {"shape": []}}})"),
                       "requestedToCapacityRatio.shape: Required value: at least one point must "
                       "be specified"));
  std::string err = argsError(kFit, R"({"scoringStrategy": {"type": "RequestedToCapacityRatio",
      "requestedToCapacityRatio": {"shape": [{"utilization": 50, "score": 2},
                                             {"utilization": 40, "score": 11},
                                             {"utilization": 101, "score": -1}]}}})");
  EXPECT_TRUE(contains(err,
                       "shape[1].utilization: Invalid value: 40: values must be sorted in "
                       "increasing order"));
  EXPECT_TRUE(contains(err, "shape[1].score: Invalid value: 11: not in valid range [0, 10]"));
  EXPECT_TRUE(contains(err,
                       "shape[2].utilization: Invalid value: 101: not in valid range "
                       "[0, 100]"));
  EXPECT_TRUE(contains(err, "shape[2].score: Invalid value: -1: not in valid range [0, 10]"));
}

TEST(FitArgsTest, IgnoredResources) {
  std::string err = argsError(kFit, R"({"ignoredResources": ["-invalid-"],
                                       "ignoredResourceGroups": ["example.com/foo"]})");
  EXPECT_TRUE(contains(err,
                       "ignoredResources[0]: Invalid value: \"-invalid-\": name part must "
                       "consist of alphanumeric characters"));
  EXPECT_TRUE(contains(err,
                       "ignoredResourceGroups[0]: Invalid value: \"example.com/foo\": "
                       "resource group name can't contain '/'"));
}

TEST(FitArgsTest, UnknownField) {
  EXPECT_TRUE(contains(argsError(kFit, R"({"scoringStrategy": {"type": "MostAllocated",
                                                              "shape": []}})"),
                       "scoringStrategy.shape: unknown field \"shape\""));
}

}  // namespace
}  // namespace schedhost::testing::fit_args_test
