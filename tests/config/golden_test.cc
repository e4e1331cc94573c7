// Golden diagnostic tests: every tests/profiles/<case>.toml is checked like
// `schedhost profile check` would, against the upstream test catalog.
//
// A case file starts with comment lines; "# kind: host" makes it a schedhost.toml (inline
// [[profiles]]), otherwise it is one profile file. Beside it:
//   <case>.stderr  the expected diagnostics, one per line, in order. A line is compared
//                  exactly, unless it starts with "re:": the rest is then an ECMAScript regex
//                  the whole diagnostic must match. No .stderr file: no diagnostics expected.
//   <case>.stdout  optional: the expected describe() output of every profile.
// Every diagnostic must name FILE:LINE:COLUMN.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/config/host_config.h"
#include "host/config/profile_printer.h"
#include "host/config/profile_resolver.h"
#include "tests/config/test_catalog.h"

namespace sh::config::golden_test {
namespace {

const std::filesystem::path kCasesDir = SCHEDHOST_TEST_PROFILES_DIR;
const std::filesystem::path kShippedDir = SCHEDHOST_SHIPPED_PROFILES_DIR;

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> caseNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kCasesDir)) {
    if (entry.path().extension() == ".toml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

struct CheckResult {
  Diagnostics diags;
  std::string stdoutText;
};

// What `schedhost profile check` does with one file. `file_name` is what diagnostics name.
CheckResult check(const std::string& text, const std::string& fileName) {
  CheckResult result;
  std::vector<ProfileConfig> profiles;
  if (text.find("# kind: host") != std::string::npos) {
    profiles = parseHostConfig(text, fileName, result.diags).profiles;
  } else {
    if (auto profile = parseProfileText(text, fileName, result.diags)) {
      profiles.push_back(std::move(*profile));
    }
    if (!result.diags.hasErrors() || !profiles.empty()) {
      finalizeProfiles(profiles, SourceLocation{fileName, 1, 1}, result.diags);
    }
  }
  for (const ResolvedProfile& profile :
       resolveAll(profiles, testing::upstreamCatalog(), result.diags)) {
    result.stdoutText += describe(profile);
  }
  return result;
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, Diagnostics) {
  const std::string name = GetParam();
  const std::filesystem::path toml = kCasesDir / (name + ".toml");
  const std::filesystem::path stderrFile = kCasesDir / (name + ".stderr");
  const std::filesystem::path stdoutFile = kCasesDir / (name + ".stdout");
  const CheckResult result = check(readFile(toml), name + ".toml");

  for (const Diagnostic& d : result.diags.items()) {
    EXPECT_TRUE(d.where.hasPosition()) << "no line:column in: " << d.str();
  }
  const std::vector<std::string> got = linesOf(result.diags.str());
  const std::vector<std::string> want = std::filesystem::exists(stderrFile)
                                            ? linesOf(readFile(stderrFile))
                                            : std::vector<std::string>{};
  ASSERT_EQ(got.size(), want.size()) << "got:\n" << result.diags.str();
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i].rfind("re:", 0) == 0) {
      EXPECT_TRUE(std::regex_match(got[i], std::regex(want[i].substr(3))))
          << "line " << i + 1 << ": " << got[i] << "\ndoes not match: " << want[i].substr(3);
    } else {
      EXPECT_EQ(got[i], want[i]) << "line " << i + 1;
    }
  }
  if (std::filesystem::exists(stdoutFile)) {
    EXPECT_EQ(result.stdoutText, readFile(stdoutFile));
  }
}

std::string testId(const ::testing::TestParamInfo<std::string>& p) {
  std::string id = p.param;
  std::replace_if(
      id.begin(), id.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; },
      '_');
  return id;
}

INSTANTIATE_TEST_SUITE_P(Profiles, GoldenTest, ::testing::ValuesIn(caseNames()), testId);

TEST(ShippedProfilesTest, DefaultTomlIsUpstreamsDefaultProfile) {
  Diagnostics diags;
  std::optional<ProfileConfig> profile = loadProfileFile(kShippedDir / "default.toml", diags);
  ASSERT_TRUE(profile.has_value()) << diags.str();
  std::vector<ProfileConfig> profiles{*profile};
  const std::vector<ResolvedProfile> resolved =
      resolveAll(profiles, testing::upstreamCatalog(), diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].schedulerName, "default-scheduler");

  // The same as a profile with nothing in it.
  Diagnostics emptyDiags;
  const ResolvedProfile empty =
      resolve(testing::profileFrom(""), testing::upstreamCatalog(), emptyDiags);
  EXPECT_EQ(describe(resolved[0]), describe(empty));
}

}  // namespace
}  // namespace sh::config::golden_test
