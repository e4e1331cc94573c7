// The trust rules (host/plugin/permissions.h), one test per rule, each asserting the whole
// refusal: the file, the rule broken and the fix.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/plugin/loader.h"
#include "host/plugin/permissions.h"
#include "host/plugin/registry.h"
#include "tests/plugin/test_support.h"

namespace sh::plugin::trust_test {
namespace {

using ::sh::plugin::testing::fixture;
using ::sh::plugin::testing::refusal;
using ::sh::plugin::testing::ScratchDir;

const std::string kOrFlag = ", or pass --insecure-plugin-permissions for development";

// Owner and mode rules with no service user, so that messages do not depend on the users of
// the machine running the test.
LoadOptions strict() {
  LoadOptions options;
  options.trust.serviceUser = "";
  return options;
}

// Who owns files in "owned by" messages: root, and the current user when that is not root.
std::string accepted() {
  return ::geteuid() == 0 ? "root"
                          : "root, the current user (uid " + std::to_string(::geteuid()) + ")";
}

void chmodOrFail(const std::string& path, mode_t mode) {
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
}

TEST(TrustTest, ChecksAreOnByDefault) {
  EXPECT_TRUE(LoadOptions().requireSafePermissions);
  EXPECT_EQ(LoadOptions().trust.serviceUser, "schedhost");
  EXPECT_FALSE(trustChecksDisabled());
}

TEST(TrustTest, AFileAsTheBuildLeavesItLoads) {
  ScratchDir dir;
  EXPECT_EQ(refusal(dir.copyFixture("libgood.so", "libplain.so"), strict()), "(loaded)");
}

TEST(TrustTest, RefusesAWorldWritableFile) {
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libopen.so");
  chmodOrFail(path, 0646);
  EXPECT_EQ(refusal(path, strict()),
            "plugin [" + path +
                "]: refused: the file is world-writable (mode 0646); make it "
                "writable by its owner only (chmod o-w " +
                path + ")" + kOrFlag);
  chmodOrFail(path, 0666);
  EXPECT_EQ(refusal(path, strict()),
            "plugin [" + path +
                "]: refused: the file is group- and world-writable (mode 0666); "
                "make it writable by its owner only (chmod go-w " +
                path + ")" + kOrFlag);
}

TEST(TrustTest, RefusesAGroupWritableDirectory) {
  ScratchDir dir;
  const std::filesystem::path sub = dir.path() / "shared";
  std::filesystem::create_directory(sub);
  chmodOrFail(sub, 0775);
  std::filesystem::copy_file(fixture("libgood.so"), sub / "libx.so");
  const std::string path = (sub / "libx.so").string();
  EXPECT_EQ(refusal(path, strict()),
            "plugin [" + path + "]: refused: the directory " + sub.string() +
                " is group-writable (mode 0775); make it writable by its owner only (chmod g-w " +
                sub.string() + ")" + kOrFlag);
  chmodOrFail(sub, 0755);
  EXPECT_EQ(refusal(path, strict()), "(loaded)");
}

TEST(TrustTest, AcceptsAStickyDirectoryOwnedByRootOnly) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to own the sticky directory";
  }
  ScratchDir dir;
  const std::filesystem::path sticky = dir.path() / "sticky";
  std::filesystem::create_directory(sticky);
  chmodOrFail(sticky, 01777);  // as /tmp
  std::filesystem::copy_file(fixture("libgood.so"), sticky / "libx.so");
  const std::string path = (sticky / "libx.so").string();
  EXPECT_EQ(refusal(path, strict()), "(loaded)");
  // The same directory owned by the service user: sticky no longer excuses its mode.
  const struct passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) {
    GTEST_SKIP() << "no user nobody";
  }
  ASSERT_EQ(::chown(sticky.c_str(), nobody->pw_uid, static_cast<gid_t>(-1)), 0);
  LoadOptions options = strict();
  options.trust.serviceUser = "nobody";
  EXPECT_EQ(refusal(path, options),
            "plugin [" + path + "]: refused: the directory " + sticky.string() +
                " is group- and world-writable (mode 1777), and though sticky it is not owned by "
                "root; make it writable by its owner only (chmod go-w " +
                sticky.string() + ")" + kOrFlag);
}

TEST(TrustTest, RefusesAForeignOwner) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give files to another user";
  }
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libforeign.so");
  constexpr uid_t kStranger = 54321;  // no user has it
  ASSERT_EQ(::chown(path.c_str(), kStranger, static_cast<gid_t>(-1)), 0);
  EXPECT_EQ(refusal(path, strict()),
            "plugin [" + path + "]: refused: the file is owned by uid 54321, not by " + accepted() +
                "; give it to root (chown root " + path + ")" + kOrFlag);

  // A directory above it, likewise.
  const std::filesystem::path sub = dir.path() / "theirs";
  std::filesystem::create_directory(sub);
  std::filesystem::copy_file(fixture("libgood.so"), sub / "libx.so");
  ASSERT_EQ(::chown(sub.c_str(), kStranger, static_cast<gid_t>(-1)), 0);
  const std::string inSub = (sub / "libx.so").string();
  EXPECT_EQ(refusal(inSub, strict()), "plugin [" + inSub + "]: refused: the directory " +
                                          sub.string() + " is owned by uid 54321, not by " +
                                          accepted() + "; give it to root (chown root " +
                                          sub.string() + ")" + kOrFlag);
}

TEST(TrustTest, AcceptsTheServiceUser) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give files to another user";
  }
  const struct passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) {
    GTEST_SKIP() << "no user nobody";
  }
  const uid_t uid = nobody->pw_uid;
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libservice.so");
  ASSERT_EQ(::chown(path.c_str(), uid, static_cast<gid_t>(-1)), 0);

  LoadOptions service = strict();
  service.trust.serviceUser = "nobody";
  EXPECT_EQ(refusal(path, service), "(loaded)");

  // Not the service user: refused, and the message says who would be accepted.
  EXPECT_EQ(refusal(path, strict()),
            "plugin [" + path + "]: refused: the file is owned by uid " + std::to_string(uid) +
                ", not by root; give it to root (chown root " + path + ")" + kOrFlag);
  LoadOptions other = strict();
  other.trust.serviceUser = "no-such-user-schedhost-test";
  EXPECT_EQ(refusal(path, other),
            "plugin [" + path + "]: refused: the file is owned by uid " + std::to_string(uid) +
                ", not by root (the service user no-such-user-schedhost-test does not exist "
                "here); give it to root (chown root " +
                path + ")" + kOrFlag);
}

TEST(TrustTest, RefusesASymlinkOutOfThePluginDirectory) {
  ScratchDir dir;
  const std::filesystem::path plugins = dir.path() / "plugins";
  const std::filesystem::path elsewhere = dir.path() / "elsewhere";
  std::filesystem::create_directory(plugins);
  std::filesystem::create_directory(elsewhere);
  std::filesystem::copy_file(fixture("libgood.so"), elsewhere / "libgood.so");
  std::filesystem::create_symlink(elsewhere / "libgood.so", plugins / "libout.so");

  PluginRegistry registry(strict());
  std::vector<ScanError> errors;
  EXPECT_EQ(registry.scanDirs({plugins.string()}, errors), 0u);
  ASSERT_EQ(errors.size(), 1u);
  const std::string link = (plugins / "libout.so").string();
  const std::string target = (elsewhere / "libgood.so").string();
  EXPECT_EQ(errors[0].path, link);
  EXPECT_EQ(errors[0].message, "plugin [" + link + "]: refused: " + link + " leads to " + target +
                                   " through a symbolic link, outside the plugin directory " +
                                   plugins.string() + "; put the plugin file itself in " +
                                   plugins.string() + " instead of a link to it" + kOrFlag);

  // A library named in a profile is held to the directory it is named in.
  try {
    registry.add(link);
    ADD_FAILURE() << "loaded through a link out of its directory";
  } catch (const LoadError& e) {
    EXPECT_EQ(std::string(e.what()), errors[0].message);
  }

  // A link that stays inside the directory is fine.
  std::filesystem::remove(plugins / "libout.so");
  std::filesystem::rename(elsewhere / "libgood.so", plugins / "libgood.so.1");
  std::filesystem::create_symlink("libgood.so.1", plugins / "libgood.so");
  errors.clear();
  EXPECT_EQ(registry.scanDirs({plugins.string()}, errors), 1u);
  EXPECT_TRUE(errors.empty()) << errors[0].message;
}

TEST(TrustTest, RefusesASha256PinMismatchThroughTheRegistry) {
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libpinned.so");
  PluginRegistry registry(strict());
  const std::string wrong(64, 'a');
  try {
    registry.add(path, wrong);
    ADD_FAILURE() << "loaded despite the pin";
  } catch (const LoadError& e) {
    const std::string actual = loadPlugin(path, strict())->sha256;
    EXPECT_EQ(std::string(e.what()),
              "plugin [" + path + "]: refused: sha256 mismatch: the profile pins " + wrong +
                  ", the file has " + actual +
                  "; install the build the pin names, or, if this build is the one its vendor "
                  "published, pin its digest in the profile's [[libraries]] sha256");
    EXPECT_EQ(registry.add(path, actual)->sha256, actual);
  }
}

// Runs in a child process (a death test), since the switch is process-wide and one-way.
TEST(TrustDeathTest, TheDevelopmentFlagTurnsTheChecksOffAndSaysSo) {
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libdev.so");
  chmodOrFail(path, 0666);
  EXPECT_EXIT(
      {
        bool refusedBefore = refusal(path, strict()) != "(loaded)";
        disableTrustChecks();
        bool loadedAfter = refusal(path, strict()) == "(loaded)";
        std::exit(refusedBefore && loadedAfter && trustChecksDisabled() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "WARNING: --insecure-plugin-permissions: plugin files are loaded without checking their "
      "owner, mode or symbolic links; never use this outside development");
  // This process is untouched.
  EXPECT_FALSE(trustChecksDisabled());
  EXPECT_NE(refusal(path, strict()), "(loaded)");
}

TEST(TrustDeathTest, TheDevelopmentFlagDoesNotRelaxThePin) {
  ScratchDir dir;
  const std::string path = dir.copyFixture("libgood.so", "libdevpin.so");
  EXPECT_EXIT(
      {
        disableTrustChecks();
        LoadOptions pinned = strict();
        pinned.expectedSha256 = std::string(64, '0');
        std::exit(refusal(path, pinned).find("sha256 mismatch") != std::string::npos ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "WARNING");
}

}  // namespace
}  // namespace sh::plugin::trust_test
