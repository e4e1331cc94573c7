// readRegularFile: what the host reads whole is a regular file of bounded size, opened without
// blocking. Each refusal names the path and the cause.
#include "host/common/regular_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace sh::regular_file_test {
namespace {

namespace fs = std::filesystem;

class RegularFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "regular-file-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(RegularFileTest, ReadsARegularFileWhole) {
  std::ofstream(path("a.toml")) << "parallelism = 2\n";
  std::string error;
  std::optional<std::string> text = readRegularFile(path("a.toml"), 1024, error);
  ASSERT_TRUE(text.has_value()) << error;
  EXPECT_EQ(*text, "parallelism = 2\n");
  // Exactly at the bound is still within it.
  EXPECT_TRUE(readRegularFile(path("a.toml"), 16, error).has_value()) << error;
}

TEST_F(RegularFileTest, RefusesWhatIsNotARegularFileWithoutBlocking) {
  std::string error;
  EXPECT_FALSE(readRegularFile(path("missing"), 1024, error).has_value());
  EXPECT_EQ(error, path("missing") + ": No such file or directory");

  EXPECT_FALSE(readRegularFile(dir_.string(), 1024, error).has_value());
  EXPECT_EQ(error, dir_.string() + ": not a regular file (a directory)");

  // A FIFO without a writer: a blocking open would never return.
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(readRegularFile(path("fifo"), 1024, error).has_value());
  EXPECT_EQ(error, path("fifo") + ": not a regular file (a FIFO)");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));

  EXPECT_FALSE(readRegularFile("/dev/zero", 1024, error).has_value());
  EXPECT_EQ(error, "/dev/zero: not a regular file (a character device)");

  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string socketPath = path("sock");
  ASSERT_LT(socketPath.size(), sizeof(address.sun_path));
  socketPath.copy(address.sun_path, socketPath.size());
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  EXPECT_FALSE(readRegularFile(socketPath, 1024, error).has_value());
  // open() of a socket fails (ENXIO) before fstat could name it.
  EXPECT_EQ(error.rfind(socketPath + ": ", 0), 0u) << error;
  ::close(sock);
}

TEST_F(RegularFileTest, RefusesAFileAboveTheBoundBeforeReadingIt) {
  // A sparse file of 1 TiB: refused by its size, not read.
  { std::ofstream(path("huge")) << ""; }
  ASSERT_EQ(::truncate(path("huge").c_str(), off_t{1} << 40), 0);
  std::string error;
  EXPECT_FALSE(readRegularFile(path("huge"), std::size_t{16} << 20, error).has_value());
  EXPECT_EQ(error, path("huge") + ": larger than the limit of 16 MiB (1099511627776 bytes)");

  std::ofstream(path("17")) << std::string(17, 'x');
  EXPECT_FALSE(readRegularFile(path("17"), 16, error).has_value());
  EXPECT_EQ(error, path("17") + ": larger than the limit of 16 bytes (17 bytes)");
}

TEST(ByteSizeTextTest, NamesTheLargestWholeUnit) {
  EXPECT_EQ(byteSizeText(std::size_t{1} << 30), "1 GiB");
  EXPECT_EQ(byteSizeText(std::size_t{16} << 20), "16 MiB");
  EXPECT_EQ(byteSizeText(std::size_t{64} << 10), "64 KiB");
  EXPECT_EQ(byteSizeText(1000), "1000 bytes");
}

}  // namespace
}  // namespace sh::regular_file_test
