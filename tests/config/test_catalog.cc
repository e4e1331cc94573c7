#include "tests/config/test_catalog.h"

#include <gtest/gtest.h>
#include <schedhost/plugin.h>

namespace sh::config::testing {

namespace {

constexpr uint32_t kPreEnqueue = SH_POINT_PRE_ENQUEUE;
constexpr uint32_t kQueueSort = SH_POINT_QUEUE_SORT;
constexpr uint32_t kPreFilter = SH_POINT_PRE_FILTER;
constexpr uint32_t kFilter = SH_POINT_FILTER;
constexpr uint32_t kPostFilter = SH_POINT_POST_FILTER;
constexpr uint32_t kPreScore = SH_POINT_PRE_SCORE;
constexpr uint32_t kScore = SH_POINT_SCORE;
constexpr uint32_t kReserve = SH_POINT_RESERVE;
constexpr uint32_t kPreBind = SH_POINT_PRE_BIND;
constexpr uint32_t kBind = SH_POINT_BIND;
constexpr uint32_t kAllPoints = (SH_POINT_POST_BIND << 1) - 1;

std::vector<CatalogEntry> upstreamEntries() {
  return {
      {"PrioritySort", kQueueSort, ""},
      {"SchedulingGates", kPreEnqueue, ""},
      {"NodeUnschedulable", kFilter, ""},
      {"NodeName", kFilter, ""},
      {"TaintToleration", kFilter | kPreScore | kScore, ""},
      {"NodeAffinity", kPreFilter | kFilter | kPreScore | kScore, R"({"addedAffinity":null})"},
      {"NodePorts", kPreFilter | kFilter, ""},
      {"NodeResourcesFit", kPreFilter | kFilter | kPreScore | kScore,
       R"({"ignoredResources":[],"ignoredResourceGroups":[],)"
       R"("scoringStrategy":{"type":"LeastAllocated",)"
       R"("resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}})"},
      {"NodeResourcesBalancedAllocation", kPreScore | kScore,
       R"({"resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]})"},
      {"ImageLocality", kScore, ""},
      {"DefaultBinder", kBind, ""},
      {"PodTopologySpread", kPreFilter | kFilter | kPreScore | kScore,
       R"({"defaultConstraints":[],"defaultingType":"System"})"},
      {"InterPodAffinity", kPreFilter | kFilter | kPreScore | kScore,
       R"({"hardPodAffinityWeight":1,"ignorePreferredTermsOfExistingPods":false})"},
      {"DefaultPreemption", kPreEnqueue | kPostFilter,
       R"({"minCandidateNodesPercentage":10,"minCandidateNodesAbsolute":100})"},
  };
}

}  // namespace

const StaticCatalog& upstreamCatalog() {
  static const StaticCatalog kCatalog(upstreamEntries());
  return kCatalog;
}

const StaticCatalog& fullUpstreamCatalog() {
  static const StaticCatalog kCatalog = [] {
    StaticCatalog c(upstreamEntries());
    c.add({"VolumeRestrictions", kPreFilter | kFilter, ""});
    c.add({"NodeVolumeLimits", kPreFilter | kFilter, ""});
    c.add({"VolumeBinding", kPreFilter | kFilter | kReserve | kPreBind | kPreScore | kScore,
           R"({"bindTimeoutSeconds":600})"});
    c.add({"VolumeZone", kPreFilter | kFilter, ""});
    c.add({"DynamicResources",
           kPreEnqueue | kPreFilter | kFilter | kPostFilter | kScore | kReserve | kPreBind,
           R"({"filterTimeout":"10s","bindingTimeout":"600s"})"});
    c.add({"NodeDeclaredFeatures", kPreFilter | kFilter, ""});
    return c;
  }();
  return kCatalog;
}

const StaticCatalog& frameworkCatalog() {
  static const StaticCatalog kCatalog({
      {"TestPlugin", kAllPoints, ""},
      {"ScorePlugin", kScore, ""},
      {"FilterPlugin", kFilter, ""},
      {"QueueSortPlugin", kQueueSort, ""},
      {"BindPlugin", kBind, ""},
  });
  return kCatalog;
}

ProfileConfig profileFrom(std::string_view text, const std::string& fileName) {
  Diagnostics diags;
  std::optional<ProfileConfig> profile = parseProfileText(text, fileName, diags);
  EXPECT_TRUE(profile.has_value()) << diags.str();
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  std::vector<ProfileConfig> profiles;
  if (profile) {
    profiles.push_back(std::move(*profile));
  }
  finalizeProfiles(profiles, SourceLocation{fileName, 1, 1}, diags);
  return profiles.front();
}

ResolvedProfile resolveText(std::string_view text, const PluginCatalog& catalog,
                            Diagnostics& diags) {
  return resolve(profileFrom(text), catalog, diags);
}

}  // namespace sh::config::testing
