// SHA-256 (FIPS 180-4), small and dependency-free: the loader pins plugin files by digest.
//
//   Sha256 h;
//   h.update(bytes.data(), bytes.size());   // any number of times, any chunk sizes
//   std::string hex = h.hexDigest();        // 64 lowercase hex digits; ends the hash
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sh::plugin {

class Sha256 {
 public:
  static constexpr std::size_t kDigestSize = 32;
  using Digest = std::array<std::uint8_t, kDigestSize>;

  Sha256();

  void update(const void* data, std::size_t size);
  // Pads and returns the digest. Call once; update() after it is a programming error.
  Digest digest();
  std::string hexDigest();

  static std::string toHex(const Digest& digest);
  // The digest of `data` in hex, in one call.
  static std::string hexOf(std::string_view data);

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t totalBytes_ = 0;
  bool finished_ = false;
};

}  // namespace sh::plugin
