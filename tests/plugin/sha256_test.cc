#include "host/plugin/sha256.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "host/plugin/plugin_file.h"

namespace sh::plugin::sha256_test {
namespace {

struct Vector {
  std::string input;
  const char* digest;
};

// Known answers for sha256Hex (libcrypto): FIPS 180-4 / NIST CAVP examples, then lengths around the
// 55/56/64-byte padding edges.
TEST(Sha256Test, KnownVectors) {
  const Vector vectors[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnop"
       "qrlmnopqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
      {std::string(55, 'a'), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {std::string(56, 'a'), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {std::string(63, 'a'), "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {std::string(64, 'a'), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {std::string(65, 'a'), "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {std::string(119, 'a'), "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {std::string(120, 'a'), "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
      {std::string(128, 'a'), "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"},
  };
  for (const Vector& v : vectors) {
    EXPECT_EQ(sha256Hex(v.input), v.digest) << "input of " << v.input.size() << " bytes";
  }
}

TEST(Sha256Test, OneMillionA) {
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, HashesBytesNotCharacters) {
  // Bytes above 0x7f and NULs are data like any other (the digest of one zero byte, and of
  // the bytes 0x00..0xff in order, as Python's hashlib computes them).
  EXPECT_EQ(sha256Hex(std::string(1, '\0')),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
  std::string all;
  for (int i = 0; i < 256; ++i) {
    all += static_cast<char>(i);
  }
  EXPECT_EQ(sha256Hex(all), "40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880");
}

TEST(PluginFileTest, RememberedDigestsFollowEveryChangeOfTheFile) {
  // PluginFile remembers digests by device, inode, size, mtime and ctime, and never for a
  // file changed in the last two seconds (ctime comes from a coarse clock). A file rewritten
  // in place with bytes of the same size, at once and with its mtime set back, is hashed
  // again; so is a file replaced by rename (another inode).
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("plugin_file_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "lib.so").string();
  std::ofstream(path) << "first version";
  EXPECT_EQ(PluginFile::open(path).sha256(), sha256Hex("first version"));
  EXPECT_EQ(PluginFile::open(path).sha256(), sha256Hex("first version"));

  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  std::ofstream(path, std::ios::in | std::ios::out) << "other version";  // same size, in place
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);  // mtime set back
  EXPECT_EQ(PluginFile::open(path).sha256(), sha256Hex("other version"));

  const std::string next = (dir / "next.so").string();
  std::ofstream(next) << "third version";
  std::filesystem::rename(next, path);
  EXPECT_EQ(PluginFile::open(path).sha256(), sha256Hex("third version"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sh::plugin::sha256_test
