// The terminal summary of each scenario under tests/explain/scenarios/, what-if list included,
// against tests/explain/golden/NAME.txt. A changed summary fails; to accept a change on
// purpose, run with SCHEDHOST_UPDATE_GOLDEN=1 and review the diff of golden/.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "host/evaluate/evaluate.h"
#include "host/explain/explanation.h"
#include "host/explain/summary.h"
#include "host/explain/what_if.h"

namespace sh::explain::summary_golden_test {
namespace {

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class SummaryGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(SummaryGolden, MatchesTheGoldenText) {
  const std::filesystem::path dir = SCHEDHOST_EXPLAIN_SCENARIOS;
  const std::string name = GetParam();
  std::string error;
  auto s = evaluate::parseScenario(boost::json::parse(readFile(dir / (name + ".json"))), error);
  ASSERT_TRUE(s.has_value()) << error;
  evaluate::Options o;
  o.pluginDirs = {SCHEDHOST_TEST_PLUGIN_DIR};
  evaluate::Result r = evaluate::run(*s, o);
  Explanation e = fromEvaluation(r, "scenario " + name + ".json");
  e.whatIfs = whatIfs(*s, r, o);
  const std::string text = summary(e);
  const std::filesystem::path golden = dir.parent_path() / "golden" / (name + ".txt");
  if (std::getenv("SCHEDHOST_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden) << text;
    GTEST_SKIP() << "wrote " << golden;
  }
  ASSERT_TRUE(std::filesystem::exists(golden)) << golden;
  EXPECT_EQ(text, readFile(golden)) << "the summary of " << name << " changed; if on purpose, "
                                    << "run with SCHEDHOST_UPDATE_GOLDEN=1 and review golden/";
}

INSTANTIATE_TEST_SUITE_P(Scenarios, SummaryGolden,
                         ::testing::Values("pending-web", "fits", "preemption"),
                         [](const auto& param) {
                           std::string n = param.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace sh::explain::summary_golden_test
