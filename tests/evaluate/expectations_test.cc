// Matching a scenario's "expect" object against evaluate's output (host/evaluate/expectations.h):
// partial matches, omitted successful filters, exact arrays, typos that must not pass.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "host/evaluate/expectations.h"

namespace sh::expectations_test {
namespace {

// What evaluate prints for a pod that fits n2 only: n1 fails NodeResourcesFit, and on n2
// TaintToleration's passing filter entry is left out.
constexpr const char* kOutput = R"({
  "pod": "default/p",
  "preFilter": {"NodeResourcesFit": {"code": "Success", "reasons": [], "nodeNames": []}},
  "nodes": {
    "n1": {"filter": {"NodeResourcesFit": {"code": "Unschedulable",
                                           "reasons": ["Insufficient cpu", "Insufficient memory"]}},
           "feasible": false, "scores": {}, "total": 0},
    "n2": {"filter": {"NodeResourcesFit": {"code": "Success", "reasons": []}},
           "feasible": true, "scores": {"NodeResourcesFit": 37, "TaintToleration": 100},
           "total": 137}
  },
  "selected": "n2",
  "postFilter": {"nominatedNodeName": null, "victims": []}
})";

evaluate::ExpectationCheck check(const char* expect, const char* output = kOutput) {
  return evaluate::checkExpectations(boost::json::parse(expect), boost::json::parse(output));
}

std::vector<std::string> described(const evaluate::ExpectationCheck& c) {
  std::vector<std::string> lines;
  for (const evaluate::Mismatch& m : c.mismatches) {
    lines.push_back(evaluate::describe(m));
  }
  return lines;
}

TEST(ExpectationsTest, WhatIsLeftOutIsNotChecked) {
  auto c = check(R"({"selected": "n2", "nodes": {"n1": {"feasible": false},
                                                  "n2": {"scores": {"NodeResourcesFit": 37}}}})");
  EXPECT_TRUE(c.passed()) << testing::PrintToString(described(c));
  EXPECT_TRUE(check("{}").passed());
}

TEST(ExpectationsTest, EveryNamedValueMustMatch) {
  auto c = check(R"({"selected": "n1", "nodes": {"n2": {"total": 138, "feasible": true,
                     "filter": {"NodeResourcesFit": {"code": "Unschedulable"}}}}})");
  EXPECT_TRUE(c.errors.empty());
  EXPECT_EQ(described(c),
            (std::vector<std::string>{
                R"(selected: expected "n1", got "n2")",
                R"(nodes.n2.total: expected 138, got 137)",
                R"(nodes.n2.filter.NodeResourcesFit.code: expected "Unschedulable", got "Success")",
            }));
  EXPECT_FALSE(c.passed());
}

TEST(ExpectationsTest, OmittedFilterEntryIsSuccess) {
  // TaintToleration has no entry on n2: it passed.
  EXPECT_TRUE(
      check(R"({"nodes": {"n2": {"filter": {"TaintToleration": {"code": "Success"}}}}})").passed());
  EXPECT_TRUE(check(R"({"nodes": {"n2": {"filter": {"TaintToleration":
                       {"code": "Success", "reasons": []}}}}})")
                  .passed());
  auto c =
      check(R"({"nodes": {"n2": {"filter": {"TaintToleration": {"code": "Unschedulable"}}}}})");
  EXPECT_EQ(described(c), std::vector<std::string>{
                              "nodes.n2.filter.TaintToleration.code: expected \"Unschedulable\", "
                              "got \"Success\" (no entry: the plugin passed or did not run)"});
}

TEST(ExpectationsTest, AMissingNodeIsNeverASuccess) {
  // A misspelt node name must not pass by way of the omitted-success rule.
  auto c = check(R"({"nodes": {"n9": {"filter": {"TaintToleration": {"code": "Success"}}}}})");
  EXPECT_EQ(described(c),
            std::vector<std::string>{
                R"(nodes.n9.filter.TaintToleration.code: expected "Success", got nothing)"});
}

TEST(ExpectationsTest, ArraysMatchExactly) {
  EXPECT_TRUE(check(R"({"nodes": {"n1": {"filter": {"NodeResourcesFit":
                 {"reasons": ["Insufficient cpu", "Insufficient memory"]}}}}})")
                  .passed());
  // A prefix, and the same reasons in another order, both differ.
  auto prefix = check(R"({"nodes": {"n1": {"filter": {"NodeResourcesFit":
                      {"reasons": ["Insufficient cpu"]}}}}})");
  EXPECT_EQ(described(prefix),
            std::vector<std::string>{
                R"(nodes.n1.filter.NodeResourcesFit.reasons: expected ["Insufficient cpu"], )"
                R"(got ["Insufficient cpu","Insufficient memory"])"});
  EXPECT_FALSE(check(R"({"nodes": {"n1": {"filter": {"NodeResourcesFit":
                  {"reasons": ["Insufficient memory", "Insufficient cpu"]}}}}})")
                   .passed());
  EXPECT_TRUE(check(R"({"postFilter": {"victims": []}})").passed());
  EXPECT_FALSE(check(R"({"postFilter": {"victims": ["default/x"]}})").passed());
}

TEST(ExpectationsTest, NullSelected) {
  constexpr const char* kNothingFits = R"({"pod": "default/p", "nodes": {}, "selected": null,
      "message": "0/0 nodes are available.",
      "postFilter": {"nominatedNodeName": null, "victims": []}})";
  EXPECT_TRUE(check(R"({"selected": null, "message": "0/0 nodes are available.",
                        "postFilter": {"nominatedNodeName": null}})",
                    kNothingFits)
                  .passed());
  EXPECT_EQ(described(check(R"({"selected": null})")),
            std::vector<std::string>{R"(selected: expected null, got "n2")"});
  EXPECT_EQ(described(check(R"({"selected": "n2"})", kNothingFits)),
            std::vector<std::string>{R"(selected: expected "n2", got null)"});
  // No message is printed when a node was selected.
  EXPECT_EQ(
      described(check(R"({"message": "0/2 nodes are available."})")),
      std::vector<std::string>{R"(message: expected "0/2 nodes are available.", got nothing)"});
}

TEST(ExpectationsTest, UnknownKeysAreErrorsNamingThePath) {
  auto c = check(R"({"selectd": "n2", "nodes": {"n1": {"fesible": false,
                     "filter": {"NodeResourcesFit": {"cod": "Unschedulable"}}}},
                     "postFilter": {"nominated": "n1"}})");
  EXPECT_FALSE(c.passed());
  EXPECT_TRUE(c.mismatches.empty());
  EXPECT_EQ(c.errors,
            (std::vector<std::string>{
                "expect.selectd: unknown key (expected one of: selected, message, preFilter, "
                "nodes, postFilter, bindingPlan)",
                "expect.nodes.n1.fesible: unknown key (expected one of: feasible, filter, scores, "
                "total)",
                "expect.nodes.n1.filter.NodeResourcesFit.cod: unknown key (expected one of: code, "
                "reasons)",
                "expect.postFilter.nominated: unknown key (expected one of: nominatedNodeName, "
                "victims)",
            }));
}

TEST(ExpectationsTest, WrongTypesAreErrors) {
  auto c = check(R"({"nodes": {"n2": {"feasible": "yes", "total": 1.5,
                     "scores": {"NodeResourcesFit": "37"}}}, "preFilter": []})");
  EXPECT_TRUE(c.mismatches.empty());
  EXPECT_EQ(c.errors,
            (std::vector<std::string>{
                R"(expect.nodes.n2.feasible: expected true or false, found "yes")",
                "expect.nodes.n2.total: expected an integer, found 1.5E0",
                R"(expect.nodes.n2.scores.NodeResourcesFit: expected an integer, found "37")",
                "expect.preFilter: expected an object, found []",
            }));
  EXPECT_EQ(check("[]").errors, std::vector<std::string>{"expect: must be an object"});
}

TEST(ExpectationsTest, PreFilterStatuses) {
  EXPECT_TRUE(check(R"({"preFilter": {"NodeResourcesFit": {"code": "Success", "nodeNames": []}}})")
                  .passed());
  // PreFilter has no omitted-success rule: a plugin without an entry did not run.
  EXPECT_EQ(
      described(check(R"({"preFilter": {"NodeAffinity": {"code": "Skip"}}})")),
      std::vector<std::string>{R"(preFilter.NodeAffinity.code: expected "Skip", got nothing)"});
}

}  // namespace
}  // namespace sh::expectations_test
