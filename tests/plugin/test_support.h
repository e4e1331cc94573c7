// Helpers shared by the loader tests: where the fixtures are, a scratch directory, and what a
// load is refused with.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "host/plugin/loader.h"

namespace sh::plugin::testing {

// The absolute, canonical path of a built fixture, e.g. fixture("libgood.so").
inline std::string fixture(const std::string& file) {
  return std::filesystem::weakly_canonical(std::filesystem::path(SH_LOADER_FIXTURE_DIR) / file)
      .string();
}

inline std::vector<std::uint8_t> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
}

inline void writeBytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

// A fresh directory (mode 0700), removed with its contents. It lives in the build tree, not
// under $TMPDIR: the trust rules (host/plugin/permissions.h) judge every directory above a
// plugin, and the build tree's are known to be owned by whoever builds and not writable by
// others, where a temp directory's may be anything.
class ScratchDir {
 public:
  ScratchDir() {
    const std::filesystem::path parent = SH_LOADER_SCRATCH_DIR;
    std::filesystem::create_directories(parent);
    std::filesystem::permissions(
        parent, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                    std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                    std::filesystem::perms::others_exec);
    std::string pattern = (parent / "loader-test-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    path_ = std::filesystem::canonical(buffer.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Copies fixture `from` (e.g. "libgood.so") to `to` here; returns the new path.
  std::string copyFixture(const std::string& from, const std::string& to) const {
    std::filesystem::copy_file(fixture(from), path_ / to);
    return file(to);
  }

 private:
  std::filesystem::path path_;
};

// The message loadPlugin refuses `path` with, or "(loaded)".
inline std::string refusal(const std::string& path, const LoadOptions& options = {}) {
  try {
    loadPlugin(path, options);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(loaded)";
}

}  // namespace sh::plugin::testing
