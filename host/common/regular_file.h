// Reading a whole file the host was told to read (a configuration, a profile, a kubeconfig
// and every file it names, a token, a scenario) without letting the file hang or exhaust
// the process.
//
//   open      O_RDONLY | O_NONBLOCK | O_CLOEXEC: opening a FIFO without a writer, or a device,
//             never waits.
//   kind      fstat on that descriptor: anything but a regular file is refused, named
//             ("a directory", "a FIFO", "a character device", ...), before a byte is read.
//   size      st_size above `maxBytes` is refused before reading (a huge sparse file costs
//             nothing); the read itself stops at maxBytes + 1, so a file that grows while it
//             is read is refused too.
//
// Errors are one line that names the path and the cause, for the caller to prefix:
//   "/etc/schedhost/schedhost.toml: not a regular file (a FIFO)"
//   "/var/run/token: larger than the limit of 1 MiB (4294967296 bytes)"
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

namespace sh {

// "a directory", "a FIFO", "a socket", "a character device", "a block device", "a symbolic
// link" or "file type N", for the refusals.
std::string fileKindName(mode_t mode);

// "1 MiB", "16 MiB", "1 GiB", "512 bytes": a limit as the messages print it.
std::string byteSizeText(std::size_t bytes);

// The whole content of the regular file `path`, at most `maxBytes` long; nullopt with `error`
// set ("PATH: cause") otherwise. Never blocks on the open, never reads past maxBytes + 1.
std::optional<std::string> readRegularFile(const std::string& path, std::size_t maxBytes,
                                           std::string& error);

// The same checks on an open descriptor (O_NONBLOCK recommended), which stays open; `path` is
// for the messages.
std::optional<std::string> readRegularFd(int fd, const std::string& path, std::size_t maxBytes,
                                         std::string& error);

}  // namespace sh
