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

namespace sh::config {
namespace {

const std::filesystem::path kCasesDir = SCHEDHOST_TEST_PROFILES_DIR;
const std::filesystem::path kShippedDir = SCHEDHOST_SHIPPED_PROFILES_DIR;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> case_names() {
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
  std::string stdout_text;
};

// What `schedhost profile check` does with one file. `file_name` is what diagnostics name.
CheckResult check(const std::string& text, const std::string& file_name) {
  CheckResult result;
  std::vector<ProfileConfig> profiles;
  if (text.find("# kind: host") != std::string::npos) {
    profiles = parse_host_config(text, file_name, result.diags).profiles;
  } else {
    if (auto profile = parse_profile_text(text, file_name, result.diags)) {
      profiles.push_back(std::move(*profile));
    }
    if (!result.diags.has_errors() || !profiles.empty()) {
      finalize_profiles(profiles, SourceLocation{file_name, 1, 1}, result.diags);
    }
  }
  for (const ResolvedProfile& profile :
       resolve_all(profiles, testing::upstream_catalog(), result.diags)) {
    result.stdout_text += describe(profile);
  }
  return result;
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, Diagnostics) {
  const std::string name = GetParam();
  const std::filesystem::path toml = kCasesDir / (name + ".toml");
  const std::filesystem::path stderr_file = kCasesDir / (name + ".stderr");
  const std::filesystem::path stdout_file = kCasesDir / (name + ".stdout");
  const CheckResult result = check(read_file(toml), name + ".toml");

  for (const Diagnostic& d : result.diags.items()) {
    EXPECT_TRUE(d.where.has_position()) << "no line:column in: " << d.str();
  }
  const std::vector<std::string> got = lines_of(result.diags.str());
  const std::vector<std::string> want = std::filesystem::exists(stderr_file)
                                            ? lines_of(read_file(stderr_file))
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
  if (std::filesystem::exists(stdout_file)) {
    EXPECT_EQ(result.stdout_text, read_file(stdout_file));
  }
}

std::string test_id(const ::testing::TestParamInfo<std::string>& p) {
  std::string id = p.param;
  std::replace_if(
      id.begin(), id.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; },
      '_');
  return id;
}

INSTANTIATE_TEST_SUITE_P(Profiles, GoldenTest, ::testing::ValuesIn(case_names()), test_id);

TEST(ShippedProfilesTest, DefaultTomlIsUpstreamsDefaultProfile) {
  Diagnostics diags;
  std::optional<ProfileConfig> profile = load_profile_file(kShippedDir / "default.toml", diags);
  ASSERT_TRUE(profile.has_value()) << diags.str();
  std::vector<ProfileConfig> profiles{*profile};
  const std::vector<ResolvedProfile> resolved =
      resolve_all(profiles, testing::upstream_catalog(), diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].scheduler_name, "default-scheduler");

  // The same as a profile with nothing in it.
  Diagnostics empty_diags;
  const ResolvedProfile empty =
      resolve(testing::profile_from(""), testing::upstream_catalog(), empty_diags);
  EXPECT_EQ(describe(resolved[0]), describe(empty));
}

}  // namespace
}  // namespace sh::config
