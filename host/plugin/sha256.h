// SHA-256 of plugin files, computed by OpenSSL's libcrypto (EVP): the loader pins plugin files
// by digest (a profile's [[libraries]] sha256) and reports the digest of every file it loads.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sh::plugin {

// The SHA-256 of `size` bytes at `data`, as 64 lowercase hex digits. Throws std::runtime_error
// if libcrypto fails (it does not for SHA-256 short of running out of memory).
std::string sha256Hex(const void* data, std::size_t size);

inline std::string sha256Hex(std::string_view data) { return sha256Hex(data.data(), data.size()); }

}  // namespace sh::plugin
