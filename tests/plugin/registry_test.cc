#include "host/plugin/registry.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/plugin/test_support.h"

namespace sh::plugin::registry_test {
namespace {

using ::sh::plugin::testing::fixture;
using ::sh::plugin::testing::ScratchDir;

std::vector<std::string> messages(const std::vector<ScanError>& errors) {
  std::vector<std::string> out;
  for (const ScanError& e : errors) {
    out.push_back(e.message);
  }
  return out;
}

TEST(PluginRegistryTest, ScansDirectoriesInNameOrderAndCollectsErrors) {
  ScratchDir dir;
  dir.copyFixture("not_elf.so", "not_elf.so");
  dir.copyFixture("libno_entry.so", "libno_entry.so");
  dir.copyFixture("libgood.so", "libgood.so");
  dir.copyFixture("libgood_copy.so", "libgood_copy.so");  // the same plugin name again
  dir.copyFixture("libmeta_disagrees.so", "libmeta_disagrees.so");
  dir.copyFixture("libgood.so", "README.txt");  // not *.so: ignored
  std::filesystem::create_directory(dir.path() / "nested");
  dir.copyFixture("libnull_vtable.so", "nested/libnull_vtable.so");  // not recursive
  const std::string missing = dir.file("missing");

  PluginRegistry registry;
  std::vector<ScanError> errors;
  EXPECT_EQ(registry.scanDirs({dir.path().string(), missing}, errors), 2u);

  EXPECT_THAT(messages(errors), ::testing::ElementsAre(
                                    "plugin \"LoaderGood\" from [" + dir.file("libgood_copy.so") +
                                        "] is already provided by [" + dir.file("libgood.so") + "]",
                                    "plugin [" + dir.file("libno_entry.so") +
                                        "]: no entry point [schedhost_plugin_v1]",
                                    "plugin [" + dir.file("not_elf.so") + "] is not an ELF file",
                                    "plugin directory [" + missing + "]: no such directory"));
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].path, dir.file("libgood_copy.so"));
  EXPECT_EQ(errors[3].path, missing);

  std::vector<std::string> names;
  for (const auto& plugin : registry.all()) {
    names.push_back(plugin->name);
  }
  EXPECT_THAT(names, ::testing::ElementsAre("LoaderGood", "MetaDisagrees"));
  ASSERT_NE(registry.find("LoaderGood"), nullptr);
  EXPECT_EQ(registry.find("LoaderGood")->path, dir.file("libgood.so"));
  EXPECT_EQ(registry.find("NoSuchPlugin"), nullptr);
}

TEST(PluginRegistryTest, IndexingRunsNoPluginCodeAndLoadRunsOnlyWhatIsAsked) {
  ::unsetenv("SH_FIXTURE_CONSTRUCTOR_MARKER_RAN");
  ScratchDir dir;
  dir.copyFixture("libconstructor_marker.so", "libconstructor_marker.so");
  dir.copyFixture("libgood.so", "libgood.so");
  dir.copyFixture("libundefined_symbol.so", "libundefined_symbol.so");  // dlopen would fail

  PluginRegistry registry;
  std::vector<ScanError> errors;
  EXPECT_EQ(registry.indexDirs({dir.path().string()}, errors), 3u);
  EXPECT_TRUE(errors.empty()) << errors.front().message;
  EXPECT_EQ(std::getenv("SH_FIXTURE_CONSTRUCTOR_MARKER_RAN"), nullptr);
  EXPECT_EQ(registry.find("ConstructorMarker"), nullptr);
  EXPECT_TRUE(registry.all().empty());
  std::vector<std::string> names;
  for (const PluginCandidate& c : registry.candidates()) {
    names.push_back(c.name + " " + c.version + " " + pointsToString(c.points));
  }
  EXPECT_THAT(names, ::testing::ElementsAre("ConstructorMarker 1.2.3 PreFilter,Filter,Score",
                                            "LoaderGood 1.2.3 PreFilter,Filter,Score",
                                            "UndefinedSymbol 1.2.3 PreFilter,Filter,Score"));

  auto good = registry.load("LoaderGood");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(registry.find("LoaderGood"), good);
  EXPECT_EQ(std::getenv("SH_FIXTURE_CONSTRUCTOR_MARKER_RAN"), nullptr);
  EXPECT_EQ(registry.load("NoSuchPlugin"), nullptr);

  ASSERT_NE(registry.load("ConstructorMarker"), nullptr);
  EXPECT_NE(std::getenv("SH_FIXTURE_CONSTRUCTOR_MARKER_RAN"), nullptr);

  // A refused load is reported, remembered, and not tried again.
  const std::string broken = dir.file("libundefined_symbol.so");
  const std::string refusal = "plugin [" + broken + "]: dlopen failed: " + broken +
                              ": undefined symbol: sh_fixture_missing_function";
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      registry.load("UndefinedSymbol");
      FAIL() << "expected LoadError";
    } catch (const LoadError& e) {
      EXPECT_EQ(std::string(e.what()), refusal);
    }
  }
  EXPECT_TRUE(registry.loadFailed("UndefinedSymbol"));
  EXPECT_FALSE(registry.loadFailed("LoaderGood"));
}

TEST(PluginRegistryTest, IndexingRefusesAFifoWithoutBlocking) {
  ScratchDir dir;
  ASSERT_EQ(::mkfifo(dir.file("libfifo.so").c_str(), 0600), 0);
  dir.copyFixture("libgood.so", "libgood.so");
  PluginRegistry registry;
  std::vector<ScanError> errors;
  EXPECT_EQ(registry.indexDirs({dir.path().string()}, errors), 1u);
  EXPECT_THAT(messages(errors), ::testing::ElementsAre("plugin [" + dir.file("libfifo.so") +
                                                       "]: not a regular file (a FIFO)"));
}

TEST(PluginRegistryTest, TheSameFileTwiceIsLoadedOnce) {
  ScratchDir dir;
  dir.copyFixture("libgood.so", "libgood.so");
  std::filesystem::create_symlink(dir.file("libgood.so"), dir.file("libgood_alias.so"));

  PluginRegistry registry;
  std::vector<ScanError> errors;
  EXPECT_EQ(registry.scanDirs({dir.path().string(), dir.path().string()}, errors), 1u);
  EXPECT_TRUE(errors.empty()) << errors.front().message;
  auto again = registry.add(dir.file("libgood.so"));
  EXPECT_EQ(again, registry.find("LoaderGood"));
  EXPECT_EQ(registry.all().size(), 1u);
}

TEST(PluginRegistryTest, AddRefusesADuplicateNameFromAnotherFile) {
  PluginRegistry registry;
  registry.add(fixture("libgood.so"));
  try {
    registry.add(fixture("libgood_copy.so"));
    FAIL() << "expected LoadError";
  } catch (const LoadError& e) {
    EXPECT_EQ(std::string(e.what()), "plugin \"LoaderGood\" from [" + fixture("libgood_copy.so") +
                                         "] is already provided by [" + fixture("libgood.so") +
                                         "]");
    EXPECT_EQ(e.path(), fixture("libgood_copy.so"));
  }
  EXPECT_EQ(registry.find("LoaderGood")->path, fixture("libgood.so"));
}

TEST(PluginRegistryTest, AddChecksThePin) {
  PluginRegistry registry;
  EXPECT_THROW(registry.add(fixture("libgood.so"), std::string(64, 'a')), LoadError);
  EXPECT_EQ(registry.find("LoaderGood"), nullptr);
  auto plugin = registry.add(fixture("libgood.so"));
  EXPECT_EQ(registry.add(fixture("libgood.so"), plugin->sha256), plugin);
}

TEST(PluginRegistryTest, PointsToStringIsReachableFromTheRegistry) {
  auto plugin = PluginRegistry().add(fixture("libgood.so"));
  EXPECT_EQ(pointsToString(plugin->points), "PreFilter,Filter,Score");
}

}  // namespace
}  // namespace sh::plugin::registry_test
