// A plugin file opened once, so that its checks, its digest and what gets loaded all
// describe the same inode (no time-of-check/time-of-use gap through the path). Digests are
// remembered by the file's device, inode, size, mtime and ctime: opening an unchanged file
// again (every reload does) reads it but does not hash it again.
//
// The file is opened O_RDONLY|O_CLOEXEC|O_NOFOLLOW|O_NONBLOCK by its canonical path (so a
// FIFO or a device never blocks the open), fstat'ed and read through that descriptor; the
// loader then dlopens a sealed copy of bytes(), never the path (loader.h). Errors quote the
// file:
//
//   [/path/x.so]: no such file
//   [/path/x.so]: not a regular file (a FIFO)
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sh::plugin {

class PluginFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PluginFile {
 public:
  // Larger files are refused: plugins are small, and the whole file is read into memory.
  static constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 30;

  // Makes `path` absolute and canonical, opens, fstats and reads it.
  static PluginFile open(const std::string& path);

  PluginFile(PluginFile&& other) noexcept;
  PluginFile& operator=(PluginFile&& other) noexcept;
  PluginFile(const PluginFile&) = delete;
  PluginFile& operator=(const PluginFile&) = delete;
  ~PluginFile();

  const std::string& path() const { return path_; }  // absolute and canonical
  int fd() const { return fd_; }
  const struct stat& status() const { return status_; }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  const std::string& sha256() const { return sha256_; }  // of bytes(), lowercase hex

 private:
  PluginFile() = default;

  std::string path_;
  int fd_ = -1;
  struct stat status_ {};
  std::vector<std::uint8_t> bytes_;
  std::string sha256_;
};

// Makes `path` absolute (against the current directory) and canonical, or throws
// PluginFileError "[/abs/path]: no such file".
std::string canonicalPluginPath(const std::string& path);

}  // namespace sh::plugin
