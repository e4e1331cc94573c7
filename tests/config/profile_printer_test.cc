#include "host/config/profile_printer.h"

#include <gtest/gtest.h>
#include <boost/json/serialize.hpp>

#include "tests/config/test_catalog.h"

namespace sh::config::profile_printer_test {
namespace {

TEST(ProfilePrinterTest, DescribeDefaultProfile) {
  Diagnostics diags;
  const ResolvedProfile p = testing::resolveText("", testing::upstreamCatalog(), diags);
  EXPECT_EQ(describe(p),
            "profile \"default-scheduler\"\n"
            "  preEnqueue: SchedulingGates, DefaultPreemption\n"
            "  queueSort:  PrioritySort\n"
            "  preFilter:  NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread, "
            "InterPodAffinity\n"
            "  filter:     NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts, "
            "NodeResourcesFit, PodTopologySpread, InterPodAffinity\n"
            "  postFilter: DefaultPreemption\n"
            "  preScore:   TaintToleration, NodeAffinity, NodeResourcesFit, PodTopologySpread, "
            "InterPodAffinity, NodeResourcesBalancedAllocation\n"
            "  score:      TaintToleration (weight 3), NodeAffinity (weight 2), NodeResourcesFit "
            "(weight 1), PodTopologySpread (weight 2), InterPodAffinity (weight 2), "
            "NodeResourcesBalancedAllocation (weight 1), ImageLocality (weight 1)\n"
            "  reserve:    (none)\n"
            "  permit:     (none)\n"
            "  preBind:    (none)\n"
            "  bind:       DefaultBinder\n"
            "  postBind:   (none)\n"
            "  args:\n"
            "    DefaultPreemption: {\"minCandidateNodesPercentage\":10,"
            "\"minCandidateNodesAbsolute\":100}\n"
            "    NodeAffinity: {\"addedAffinity\":null}\n"
            "    NodeResourcesFit: {\"ignoredResources\":[],\"ignoredResourceGroups\":[],"
            "\"scoringStrategy\":{\"type\":\"LeastAllocated\",\"resources\":[{\"name\":\"cpu\","
            "\"weight\":1},{\"name\":\"memory\",\"weight\":1}]}}\n"
            "    PodTopologySpread: {\"defaultConstraints\":[],\"defaultingType\":\"System\"}\n"
            "    InterPodAffinity: {\"hardPodAffinityWeight\":1,"
            "\"ignorePreferredTermsOfExistingPods\":false}\n"
            "    NodeResourcesBalancedAllocation: {\"resources\":[{\"name\":\"cpu\",\"weight\":1},"
            "{\"name\":\"memory\",\"weight\":1}]}\n");
}

TEST(ProfilePrinterTest, ToJsonMirrorsKubeSchedulerProfile) {
  Diagnostics diags;
  const ResolvedProfile p = testing::resolveText(R"(schedulerName = "s"
percentageOfNodesToScore = 30
[[libraries]]
path = "/opt/x.so"
[plugins.multiPoint]
disabled = [ { name = "*" } ]
enabled = [ { name = "PrioritySort" }, { name = "DefaultBinder" },
            { name = "ImageLocality", weight = 4 } ]
[[pluginConfig]]
name = "DefaultBinder"
args = { timeout = 3 }
)",
                                                 testing::upstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(boost::json::serialize(toJson(p)),
            R"({"schedulerName":"s","percentageOfNodesToScore":30,)"
            R"("libraries":[{"path":"/opt/x.so"}],"plugins":{"preEnqueue":[],)"
            R"("queueSort":[{"name":"PrioritySort"}],"preFilter":[],"filter":[],)"
            R"("postFilter":[],"preScore":[],"score":[{"name":"ImageLocality","weight":4}],)"
            R"("reserve":[],"permit":[],"preBind":[],"bind":[{"name":"DefaultBinder"}],)"
            R"("postBind":[]},"pluginConfig":[{"name":"DefaultBinder","args":{"timeout":3}}]})");
}

}  // namespace
}  // namespace sh::config::profile_printer_test
