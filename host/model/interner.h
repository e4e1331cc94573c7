// The process-wide string interner: label keys and values, resource names, taint keys and
// values, topology keys and image names become stable integer ids (sh_id), so plugins compare
// integers on the hot path.
//
// Invariants:
//   - An id, once handed out, maps to the same bytes for the life of the process.
//   - The bytes of str(id) never move and are never freed; each is followed by a NUL.
//   - Ids 1..8 are the well-known ids of plugin.h; 9..15 are reserved (they map to "");
//     dynamic ids start at SH_WELL_KNOWN_END (16). "" is always SH_ID_EMPTY.
//
// Threading: every method is safe to call concurrently. str()/view() take no lock at all;
// find()/intern() of an existing string take a shared lock on one of kShards shards;
// only the first intern() of a new string takes that shard's lock exclusively.
#ifndef SCHEDHOST_HOST_MODEL_INTERNER_H
#define SCHEDHOST_HOST_MODEL_INTERNER_H

#include <schedhost/plugin.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <shared_mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sh::model {

class Interner {
 public:
  // Ids per lock-free lookup chunk, and the number of chunks: at most 2^26 distinct strings.
  static constexpr std::size_t kChunkBits = 12;
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;
  static constexpr std::size_t kMaxChunks = std::size_t{1} << 14;
  static constexpr std::size_t kShards = 16;

  Interner();
  ~Interner();
  Interner(const Interner&) = delete;
  Interner& operator=(const Interner&) = delete;

  // The id of `s`, adding it when new. Returns SH_ID_NONE only if the id space is exhausted.
  sh_id intern(std::string_view s);
  // The id of `s`, or SH_ID_NONE when it was never interned.
  sh_id find(std::string_view s) const;
  // The bytes of `id`; {"" , 0} for SH_ID_NONE, reserved or unknown ids.
  sh_str str(sh_id id) const;
  std::string_view view(sh_id id) const {
    sh_str s = str(id);
    return {s.ptr, s.len};
  }
  // Number of ids handed out so far, including the well-known and reserved ones.
  std::size_t size() const { return nextId_.load(std::memory_order_acquire); }

 private:
  struct Shard;

  const sh_str* slot(sh_id id) const;
  sh_str* slotForWrite(sh_id id);
  sh_id insertLocked(Shard& shard, std::string_view s, sh_id fixedId);

  std::array<std::atomic<sh_str*>, kMaxChunks> chunks_{};
  std::unique_ptr<Shard[]> shards_;
  std::atomic<std::size_t> nextId_{SH_WELL_KNOWN_END};
};

// The process-wide interner.
Interner& interner();

// Shorthands for the global interner.
inline sh_id intern(std::string_view s) { return interner().intern(s); }
inline sh_str internStr(std::string_view s) { return interner().str(interner().intern(s)); }

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_INTERNER_H
