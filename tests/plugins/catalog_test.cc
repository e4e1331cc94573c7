// plugins/catalog.toml agrees with the plugins as built: every default plugin is listed under
// its name, with exactly the extension points its library implements.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

#ifndef SCHEDHOST_PLUGIN_CATALOG
#error "SCHEDHOST_PLUGIN_CATALOG must name plugins/catalog.toml"
#endif

namespace schedhost::testing::catalog_test {
namespace {

// name → points, from the catalog's `name = "..."` and `points = [...]` lines.
std::map<std::string, std::set<std::string>> readCatalog() {
  std::ifstream in(SCHEDHOST_PLUGIN_CATALOG);
  std::map<std::string, std::set<std::string>> out;
  std::string line;
  std::string name;
  auto quoted = [](const std::string& s) {
    std::vector<std::string> items;
    for (std::size_t i = s.find('"'); i != std::string::npos; i = s.find('"', i + 1)) {
      std::size_t end = s.find('"', i + 1);
      items.push_back(s.substr(i + 1, end - i - 1));
      i = end;
    }
    return items;
  };
  while (std::getline(in, line)) {
    if (line.rfind("name = ", 0) == 0) {
      name = quoted(line).at(0);
      out[name];
    } else if (line.rfind("points = ", 0) == 0) {
      for (const std::string& p : quoted(line)) {
        out[name].insert(p);
      }
    }
  }
  return out;
}

std::set<std::string> builtPoints(const LoadedPlugin& plugin) {
  static const std::vector<std::pair<std::string, uint32_t>> kBits = {
      {"PreEnqueue", SH_POINT_PRE_ENQUEUE},
      {"QueueSort", SH_POINT_QUEUE_SORT},
      {"PreFilter", SH_POINT_PRE_FILTER},
      {"Filter", SH_POINT_FILTER},
      {"PostFilter", SH_POINT_POST_FILTER},
      {"PreScore", SH_POINT_PRE_SCORE},
      {"Score", SH_POINT_SCORE},
      {"Reserve", SH_POINT_RESERVE},
      {"Permit", SH_POINT_PERMIT},
      {"PreBind", SH_POINT_PRE_BIND},
      {"Bind", SH_POINT_BIND},
      {"PostBind", SH_POINT_POST_BIND}};
  std::set<std::string> out;
  for (const auto& [point, bit] : kBits) {
    if ((plugin.instance().points() & bit) != 0) {
      out.insert(point);
    }
  }
  if (plugin.instance().vtable().normalize_score != nullptr) {
    out.insert("NormalizeScore");
  }
  if (plugin.instance().hasEventsToRegister()) {
    out.insert("EnqueueExtensions");
  }
  return out;
}

TEST(CatalogTest, ListsEveryDefaultPluginWithItsPoints) {
  auto catalog = readCatalog();
  const std::vector<std::string> defaults = {"PrioritySort",
                                             "SchedulingGates",
                                             "NodeUnschedulable",
                                             "NodeName",
                                             "TaintToleration",
                                             "NodeAffinity",
                                             "NodePorts",
                                             "NodeResourcesFit",
                                             "NodeResourcesBalancedAllocation",
                                             "ImageLocality",
                                             "DefaultBinder",
                                             "PodTopologySpread",
                                             "InterPodAffinity",
                                             "DefaultPreemption",
                                             "VolumeRestrictions",
                                             "NodeVolumeLimits",
                                             "VolumeBinding",
                                             "VolumeZone",
                                             "NodeDeclaredFeatures"};
  EXPECT_EQ(catalog.size(), defaults.size());
  for (const std::string& name : defaults) {
    SCOPED_TRACE(name);
    ASSERT_EQ(catalog.count(name), 1u);
    LoadedPlugin plugin(name);
    EXPECT_EQ(catalog[name], builtPoints(plugin));
    EXPECT_EQ(plugin.instance().library().version, "1.36.0");
  }
}

}  // namespace
}  // namespace schedhost::testing::catalog_test
