#include "host/plugin/loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "host/plugin/sha256.h"
#include "tests/plugin/test_support.h"

namespace sh::plugin::loader_test {
namespace {

using ::sh::plugin::testing::fixture;
using ::sh::plugin::testing::readBytes;
using ::sh::plugin::testing::refusal;
using ::sh::plugin::testing::ScratchDir;
using ::testing::HasSubstr;

std::string fileSha256(const std::string& path) {
  std::vector<std::uint8_t> bytes = readBytes(path);
  return sha256Hex(bytes.data(), bytes.size());
}

TEST(LoaderTest, LoadsAMinimalCPlugin) {
  const std::string path = fixture("libgood.so");
  auto plugin = loadPlugin(path, {});
  EXPECT_EQ(plugin->path, path);
  EXPECT_EQ(plugin->name, "LoaderGood");
  EXPECT_EQ(plugin->version, "1.2.3");
  EXPECT_EQ(plugin->abiMajor, 1);
  EXPECT_EQ(plugin->abiMinor, SH_ABI_MINOR);
  EXPECT_EQ(plugin->points, SH_POINT_PRE_FILTER | SH_POINT_FILTER | SH_POINT_SCORE);
  EXPECT_EQ(plugin->flags, 0u);
  EXPECT_EQ(plugin->sha256, fileSha256(path));
  EXPECT_TRUE(plugin->warnings.empty());
  ASSERT_NE(plugin->library, nullptr);
  ASSERT_NE(plugin->descriptor, nullptr);
  ASSERT_EQ(plugin->vtable, plugin->descriptor->vtable);
  EXPECT_STREQ(plugin->descriptor->default_args_json, "{}");

  // The code is live: create an instance and score through the vtable.
  void* self = plugin->descriptor->create(nullptr, nullptr, nullptr);
  ASSERT_NE(self, nullptr);
  std::int64_t score = 0;
  EXPECT_EQ(plugin->vtable->score(self, nullptr, nullptr, nullptr, &score, nullptr), SH_SUCCESS);
  EXPECT_EQ(score, 42);
  plugin->descriptor->destroy(self);
}

TEST(LoaderTest, MakesRelativePathsAbsolute) {
  const std::string path = fixture("libgood.so");
  std::string relative = std::filesystem::relative(path).string();
  ASSERT_FALSE(std::filesystem::path(relative).is_absolute());
  auto plugin = loadPlugin(relative, {});
  EXPECT_EQ(plugin->path, path);
}

TEST(LoaderTest, SameFileSharesOneLibrary) {
  auto a = loadPlugin(fixture("libgood.so"), {});
  auto b = loadPlugin(fixture("libgood.so"), {});
  EXPECT_NE(a, b);
  EXPECT_EQ(a->library, b->library);
  EXPECT_EQ(a->descriptor, b->descriptor);

  // A symlink is the same file too; the plugin reports the canonical path.
  ScratchDir dir;
  std::filesystem::create_symlink(fixture("libgood.so"), dir.file("liblink.so"));
  auto c = loadPlugin(dir.file("liblink.so"), {});
  EXPECT_EQ(c->library, a->library);
  EXPECT_EQ(c->path, fixture("libgood.so"));
}

TEST(LoaderTest, ConcurrentLoadsShareOneLibrary) {
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libfresh.so");
  std::vector<std::shared_ptr<const LoadedPlugin>> loaded(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    threads.emplace_back([&, i] { loaded[i] = loadPlugin(path, {}); });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  for (const auto& plugin : loaded) {
    ASSERT_NE(plugin, nullptr);
    EXPECT_EQ(plugin->library, loaded[0]->library);
  }
}

TEST(LoaderTest, LoadsAPluginBuiltForAnOlderMinor) {
  // Built against ABI 1.0 (before cycle_activate_pod): minors only add, so it still loads.
  const std::string path = fixture("libolder_minor.so");
  auto plugin = loadPlugin(path, {});
  EXPECT_EQ(plugin->name, "OlderMinor");
  EXPECT_EQ(plugin->abiMajor, 1);
  EXPECT_EQ(plugin->abiMinor, 0);
  EXPECT_TRUE(plugin->warnings.empty());
  ASSERT_NE(plugin->descriptor, nullptr);
}

struct Refusal {
  const char* file;
  std::string message;  // after "plugin [<path>]"
};

TEST(LoaderTest, RefusesBrokenPlugins) {
  const Refusal refusals[] = {
      {"libmissing.so", ": no such file"},
      {"not_elf.so", " is not an ELF file"},
      {"libno_metadata.so", ": no .shmeta section (not built with the schedhost SDK)"},
      {"libno_entry.so", ": no entry point [schedhost_plugin_v1]"},
      {"libmeta_wrong_major.so", ": built for ABI 2; host supports 1"},
      {"libwrong_major.so", ": built for ABI 2; host supports 1"},
      {"libnewer_minor.so",
       ": built for ABI 1.99; host supports up to 1." + std::to_string(SH_ABI_MINOR)},
      {"libnull_entry.so", ": entry point [schedhost_plugin_v1] returned NULL"},
      {"libsmall_descriptor.so", ": descriptor too small: 8 bytes, expected at least 64"},
      {"libnull_vtable.so", ": descriptor has no vtable"},
      {"libnull_name.so", ": descriptor has no name"},
      {"libnull_create.so", ": descriptor has no create function"},
      {"libnull_destroy.so", ": descriptor has no destroy function"},
      {"libsmall_vtable.so", ": vtable too small: 16 bytes, expected at least 152"},
      {"libname_mismatch.so",
       ": descriptor name \"DescriptorName\" differs from the .shmeta name \"MetadataName\""},
      {"libincoherent_vtable.so", ": vtable sets [normalize_score] without [score]"},
  };
  for (const Refusal& r : refusals) {
    const std::string path = fixture(r.file);
    EXPECT_EQ(refusal(path), "plugin [" + path + "]" + r.message);
    try {
      loadPlugin(path, {});
    } catch (const LoadError& e) {
      EXPECT_EQ(e.path(), path);
    }
  }
}

TEST(LoaderTest, RefusesFromTheFileAloneWithoutRunningIt) {
  // meta_wrong_major's constructor would set this variable had the library been dlopened.
  ::unsetenv("SH_FIXTURE_META_WRONG_MAJOR_RAN");
  EXPECT_THAT(refusal(fixture("libmeta_wrong_major.so")), HasSubstr("built for ABI 2"));
  EXPECT_EQ(std::getenv("SH_FIXTURE_META_WRONG_MAJOR_RAN"), nullptr);
}

TEST(LoaderTest, RefusesAnEntrySymbolThatIsData) {
  // The library's constructor would set this variable had it been dlopened.
  ::unsetenv("SH_FIXTURE_DATA_ENTRY_RAN");
  const std::string path = fixture("libdata_entry.so");
  EXPECT_EQ(refusal(path), "plugin [" + path +
                               "]: entry point [schedhost_plugin_v1] is not a function (symbol "
                               "type STT_OBJECT)");
  EXPECT_EQ(std::getenv("SH_FIXTURE_DATA_ENTRY_RAN"), nullptr);
}

TEST(LoaderTest, RefusesADirectory) {
  const std::string dir = fixture("");
  std::string canonical = std::filesystem::canonical(dir).string();
  EXPECT_EQ(refusal(dir), "plugin [" + canonical + "]: not a regular file (a directory)");
}

TEST(LoaderTest, RefusesAFifoWithoutBlockingInOpen) {
  // Without O_NONBLOCK, opening a FIFO for reading waits for a writer that never comes.
  ScratchDir dir;
  const std::string path = dir.file("libfifo.so");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(refusal(path), "plugin [" + path + "]: not a regular file (a FIFO)");
}

TEST(LoaderTest, KeepsTheDlerrorText) {
  const std::string path = fixture("libundefined_symbol.so");
  EXPECT_EQ(refusal(path), "plugin [" + path + "]: dlopen failed: " + path +
                               ": undefined symbol: sh_fixture_missing_function");
}

TEST(LoaderTest, ChecksThePinnedSha256) {
  const std::string path = fixture("libgood.so");
  const std::string actual = fileSha256(path);

  LoadOptions pinned;
  pinned.expectedSha256 = actual;
  EXPECT_EQ(loadPlugin(path, pinned)->sha256, actual);

  std::string upper = actual;
  for (char& c : upper) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  pinned.expectedSha256 = upper;
  EXPECT_EQ(refusal(path, pinned), "(loaded)");

  pinned.expectedSha256 = std::string(64, '0');
  EXPECT_EQ(refusal(path, pinned),
            "plugin [" + path + "]: refused: sha256 mismatch: the profile pins " +
                std::string(64, '0') + ", the file has " + actual +
                "; install the build the pin names, or, if this build is the one its vendor "
                "published, pin its digest in the profile's [[libraries]] sha256");

  pinned.expectedSha256 = "9f2c";
  EXPECT_EQ(refusal(path, pinned),
            "plugin [" + path + "]: expected sha256 [9f2c] is not 64 hex digits");
}

TEST(LoaderTest, WarnsWhenMetadataDisagreesWithTheCode) {
  auto plugin = loadPlugin(fixture("libmeta_disagrees.so"), {});
  EXPECT_THAT(plugin->warnings,
              ::testing::ElementsAre(
                  ".shmeta version \"9.9.9\" differs from the descriptor version \"1.2.3\"",
                  ".shmeta declares points [Filter] but the vtable implements "
                  "[PreFilter,Filter,Score]",
                  ".shmeta declares flags [Serialize] but the descriptor has []"));
}

// What a plugin's Score returns when its code runs: the fixture's score is 42.
int64_t callScore(const LoadedPlugin& plugin) {
  int64_t score = 0;
  EXPECT_EQ(plugin.vtable->score(nullptr, nullptr, nullptr, nullptr, &score, nullptr), SH_SUCCESS);
  return score;
}

// Writing over a loaded .so in place used to reach the pages the process had mapped from it:
// truncating the file made the next call into its code die of SIGBUS, and new bytes changed
// the code under a running plugin. The host runs a sealed copy of what it checked, so nothing
// written to the path reaches it.
TEST(LoaderTest, RunsTheCheckedBytesWhateverIsWrittenToTheFileAfterwards) {
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libchanging.so");
  const std::vector<std::uint8_t> original = readBytes(path);
  auto plugin = loadPlugin(path, {});
  EXPECT_EQ(callScore(*plugin), 42);

  // Truncated (what `cp` does first), then a partial write of zeros: the same inode all along.
  ASSERT_EQ(::truncate(path.c_str(), 0), 0);
  EXPECT_EQ(callScore(*plugin), 42);
  {
    std::ofstream out(path, std::ios::binary | std::ios::in | std::ios::out);
    const std::string zeros(original.size() / 2, '\0');
    out.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  EXPECT_EQ(callScore(*plugin), 42);
  EXPECT_STREQ(plugin->descriptor->name, "LoaderGood");
  // The half-written file is no plugin: refused by the ELF checks, the running one untouched.
  EXPECT_EQ(refusal(path), "plugin [" + path + "] is not an ELF file");
  EXPECT_EQ(callScore(*plugin), 42);

  // The same build written back in place (`cp` of the same file): the same bytes, the same
  // resident library.
  ::sh::plugin::testing::writeBytes(path, original);
  auto again = loadPlugin(path, {});
  EXPECT_EQ(again->sha256, plugin->sha256);
  EXPECT_EQ(again->library, plugin->library);
}

// Other bytes under the same inode are another build: checked and loaded as a library of its
// own, while the one loaded before keeps running its own copy.
TEST(LoaderTest, LoadsAFileChangedInPlaceAsANewLibrary) {
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libchanging.so");
  auto before = loadPlugin(path, {});
  {
    // Trailing bytes: still a valid ELF file, but not the bytes that were loaded.
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << "tail";
  }
  auto after = loadPlugin(path, {});
  EXPECT_EQ(after->sha256, fileSha256(path));
  EXPECT_NE(after->sha256, before->sha256);
  EXPECT_NE(after->library, before->library);
  EXPECT_NE(after->vtable, before->vtable);
  EXPECT_EQ(callScore(*before), 42);
  EXPECT_EQ(callScore(*after), 42);

  // Replacing by rename with the first build's bytes gives back the first library.
  const std::string fresh = dir.copyFixture("libgood.so", "libnext.so");
  std::filesystem::rename(fresh, path);
  EXPECT_EQ(loadPlugin(path, {})->library, before->library);
}

}  // namespace
}  // namespace sh::plugin::loader_test
