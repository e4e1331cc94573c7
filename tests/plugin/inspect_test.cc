#include "host/plugin/inspect.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <boost/json/serialize.hpp>

#include "host/plugin/loader.h"
#include "tests/plugin/test_support.h"

namespace sh::plugin::inspect_test {
namespace {

using ::sh::plugin::testing::fixture;
using ::sh::plugin::testing::ScratchDir;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

std::string inspectError(const std::string& path) {
  try {
    inspect(path);
  } catch (const InspectError& e) {
    return e.what();
  }
  return "(inspected)";
}

TEST(InspectTest, ReportsAGoodPlugin) {
  const std::string path = fixture("libgood.so");
  InspectReport report = inspect(path);
  EXPECT_EQ(report.path, path);
  EXPECT_EQ(report.size, std::filesystem::file_size(path));
  EXPECT_EQ(report.sha256, loadPlugin(path, {})->sha256);
  EXPECT_TRUE(report.hasMetadata);
  EXPECT_EQ(report.name, "LoaderGood");
  EXPECT_EQ(report.version, "1.2.3");
  EXPECT_EQ(report.abiMajor, 1);
  EXPECT_EQ(report.abiMinor, SH_ABI_MINOR);
  EXPECT_EQ(report.points, SH_POINT_PRE_FILTER | SH_POINT_FILTER | SH_POINT_SCORE);
  EXPECT_EQ(report.exports, std::vector<std::string>{"schedhost_plugin_v1"});
  EXPECT_FALSE(report.hasTls);
  EXPECT_TRUE(report.loadable());
  EXPECT_TRUE(report.errors.empty());
  // The build tree passes the trust rules (tests/plugin/test_support.h): nothing may warn.
  EXPECT_TRUE(report.warnings.empty()) << report.warnings.front();
}

TEST(InspectTest, WarnsAboutWhatKeepsALibraryLoaded) {
  InspectReport report = inspect(fixture("libleaky.so"));
  EXPECT_TRUE(report.loadable());
  EXPECT_TRUE(report.hasTls);
  EXPECT_THAT(report.exports, Contains("leaky_helper"));
  EXPECT_THAT(report.warnings,
              Contains(AllOf(HasSubstr("besides the entry point"), HasSubstr("[leaky_helper]"))));
  EXPECT_THAT(report.warnings, Contains(AllOf(HasSubstr("STB_GNU_UNIQUE"),
                                              HasSubstr("[_ZZ12leakyCountervE7counter]"))));
  EXPECT_THAT(report.warnings, Contains(HasSubstr("(PT_TLS)")));
}

TEST(InspectTest, ListsWhyTheLoaderWouldRefuse) {
  EXPECT_THAT(inspect(fixture("libno_entry.so")).errors,
              ::testing::ElementsAre("no entry point [schedhost_plugin_v1]"));
  EXPECT_THAT(inspect(fixture("libmeta_wrong_major.so")).errors,
              ::testing::ElementsAre("built for ABI 2; host supports 1"));
  EXPECT_THAT(inspect(fixture("libdata_entry.so")).errors,
              ::testing::ElementsAre(
                  "entry point [schedhost_plugin_v1] is not a function (symbol type STT_OBJECT)"));
  InspectReport noMetadata = inspect(fixture("libno_metadata.so"));
  EXPECT_FALSE(noMetadata.hasMetadata);
  EXPECT_FALSE(noMetadata.loadable());
  EXPECT_THAT(noMetadata.errors,
              ::testing::ElementsAre("no .shmeta section (not built with the schedhost SDK)"));
}

TEST(InspectTest, NeverRunsThePlugin) {
  ::unsetenv("SH_FIXTURE_META_WRONG_MAJOR_RAN");
  inspect(fixture("libmeta_wrong_major.so"));
  EXPECT_EQ(std::getenv("SH_FIXTURE_META_WRONG_MAJOR_RAN"), nullptr);
}

TEST(InspectTest, ThrowsForWhatIsNotAPlugin) {
  EXPECT_EQ(inspectError(fixture("not_elf.so")),
            "[" + fixture("not_elf.so") + "] is not an ELF file");
  EXPECT_EQ(inspectError(fixture("libmissing.so")),
            "[" + fixture("libmissing.so") + "]: no such file");
}

TEST(InspectTest, RefusesAFifoWithoutBlocking) {
  ScratchDir dir;
  const std::string path = dir.file("libfifo.so");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(inspectError(path), "[" + path + "]: not a regular file (a FIFO)");
}

TEST(InspectTest, WarnsAboutWritableFiles) {
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libgood.so");
  std::filesystem::permissions(path, std::filesystem::perms::all);
  InspectReport report = inspect(path);
  EXPECT_THAT(report.warnings,
              Contains("loading would be refused: the file is group- and world-writable (mode "
                       "0777); make it writable by its owner only (chmod go-w " +
                       path + "), or pass --insecure-plugin-permissions for development"));
}

TEST(InspectTest, Text) {
  InspectReport report = inspect(fixture("libgood.so"));
  std::string text = toText(report);
  EXPECT_THAT(text, HasSubstr("plugin    " + fixture("libgood.so") + "\n"));
  EXPECT_THAT(text, HasSubstr("name      LoaderGood\n"));
  // The fixture is built against the live header: the host's own minor.
  EXPECT_THAT(text, HasSubstr("abi       1." + std::to_string(SH_ABI_MINOR) + "\n"));
  EXPECT_THAT(text, HasSubstr("points    PreFilter,Filter,Score\n"));
  EXPECT_THAT(text, HasSubstr("flags     (none)\n"));
  EXPECT_THAT(text, HasSubstr("exports   schedhost_plugin_v1\n"));
  EXPECT_THAT(text, HasSubstr("loadable  yes\n"));

  std::string refused = toText(inspect(fixture("libno_entry.so")));
  EXPECT_THAT(refused, HasSubstr("loadable  no\n"));
  EXPECT_THAT(refused, HasSubstr("error: no entry point [schedhost_plugin_v1]\n"));
}

TEST(InspectTest, Json) {
  InspectReport report = inspect(fixture("libgood.so"));
  boost::json::value json = toJson(report);
  const boost::json::object& o = json.as_object();
  EXPECT_EQ(o.at("path").as_string(), fixture("libgood.so"));
  EXPECT_EQ(o.at("sha256").as_string(), report.sha256);
  EXPECT_EQ(o.at("size").to_number<std::uint64_t>(), report.size);
  const boost::json::object& meta = o.at("metadata").as_object();
  EXPECT_EQ(meta.at("name").as_string(), "LoaderGood");
  EXPECT_EQ(meta.at("abiMajor").to_number<int>(), 1);
  EXPECT_EQ(boost::json::serialize(meta.at("points")), R"(["PreFilter","Filter","Score"])");
  EXPECT_EQ(boost::json::serialize(meta.at("flags")), "[]");
  EXPECT_EQ(boost::json::serialize(o.at("exports")), R"(["schedhost_plugin_v1"])");
  EXPECT_TRUE(o.at("loadable").as_bool());
  EXPECT_TRUE(o.at("errors").as_array().empty());

  boost::json::value bare = toJson(inspect(fixture("libno_metadata.so")));
  EXPECT_TRUE(bare.as_object().at("metadata").is_null());
  EXPECT_FALSE(bare.as_object().at("loadable").as_bool());
}

}  // namespace
}  // namespace sh::plugin::inspect_test
