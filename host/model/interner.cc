#include "host/model/interner.h"

#include <spdlog/spdlog.h>

#include <cstring>
#include <mutex>

namespace sh::model {
namespace {

constexpr std::size_t kBlockSize = 64 * 1024;  // string bytes per arena block
const char kEmpty[] = "";

std::size_t shardOf(std::string_view s) {
  return std::hash<std::string_view>{}(s) % Interner::kShards;
}

}  // namespace

// One lock, one map and one byte arena. Strings are bump-allocated from blocks that are
// never freed, so views into them stay valid forever.
struct Interner::Shard {
  mutable std::shared_mutex mu;
  std::unordered_map<std::string_view, sh_id> ids;
  std::vector<std::unique_ptr<char[]>> blocks;
  char* cursor = nullptr;
  std::size_t left = 0;

  const char* store(std::string_view s) {
    std::size_t need = s.size() + 1;
    char* out = nullptr;
    if (need > kBlockSize / 4) {
      // Large strings get a block of their own, so the current block is not wasted.
      blocks.push_back(std::make_unique<char[]>(need));
      out = blocks.back().get();
    } else {
      if (need > left) {
        blocks.push_back(std::make_unique<char[]>(kBlockSize));
        cursor = blocks.back().get();
        left = kBlockSize;
      }
      out = cursor;
      cursor += need;
      left -= need;
    }
    if (!s.empty()) {
      std::memcpy(out, s.data(), s.size());
    }
    out[s.size()] = '\0';
    return out;
  }
};

Interner::Interner() : shards_(std::make_unique<Shard[]>(kShards)) {
  static constexpr std::pair<sh_id, std::string_view> kWellKnown[] = {
      {SH_ID_CPU, "cpu"},
      {SH_ID_MEMORY, "memory"},
      {SH_ID_EPHEMERAL_STORAGE, "ephemeral-storage"},
      {SH_ID_PODS, "pods"},
      {SH_ID_HOSTNAME, "kubernetes.io/hostname"},
      {SH_ID_ZONE, "topology.kubernetes.io/zone"},
      {SH_ID_REGION, "topology.kubernetes.io/region"},
      {SH_ID_EMPTY, ""},
  };
  for (const auto& [id, s] : kWellKnown) {
    Shard& shard = shards_[shardOf(s)];
    std::unique_lock lock(shard.mu);
    insertLocked(shard, s, id);
  }
  // Reserved ids 0 and 9..15 read as "".
  for (sh_id id = 0; id < SH_WELL_KNOWN_END; ++id) {
    sh_str* out = slotForWrite(id);
    if (out->ptr == nullptr) {
      *out = sh_str{kEmpty, 0};
    }
  }
}

Interner::~Interner() {
  for (auto& chunk : chunks_) {
    delete[] chunk.load(std::memory_order_relaxed);
  }
}

const sh_str* Interner::slot(sh_id id) const {
  std::size_t chunk = id >> kChunkBits;
  if (chunk >= kMaxChunks) {
    return nullptr;
  }
  const sh_str* base = chunks_[chunk].load(std::memory_order_acquire);
  if (base == nullptr) {
    return nullptr;
  }
  return base + (id & (kChunkSize - 1));
}

sh_str* Interner::slotForWrite(sh_id id) {
  std::size_t chunk = id >> kChunkBits;
  sh_str* base = chunks_[chunk].load(std::memory_order_acquire);
  if (base == nullptr) {
    // Two shards may race to create the same chunk; the loser frees its copy.
    auto* fresh = new sh_str[kChunkSize]();
    if (chunks_[chunk].compare_exchange_strong(base, fresh, std::memory_order_acq_rel)) {
      base = fresh;
    } else {
      delete[] fresh;
    }
  }
  return base + (id & (kChunkSize - 1));
}

sh_id Interner::insertLocked(Shard& shard, std::string_view s, sh_id fixedId) {
  sh_id id = fixedId;
  if (id == SH_ID_NONE) {
    std::size_t next = nextId_.fetch_add(1, std::memory_order_acq_rel);
    if (next >= kChunkSize * kMaxChunks) {
      nextId_.store(kChunkSize * kMaxChunks, std::memory_order_release);
      static std::once_flag logged;
      std::call_once(logged, [] {
        spdlog::error("interner: all {} string ids are in use; new strings map to id 0",
                      kChunkSize * kMaxChunks);
      });
      return SH_ID_NONE;
    }
    id = static_cast<sh_id>(next);
  }
  const char* bytes = shard.store(s);
  // The slot is written before the id is published through the map (under the lock), so a
  // reader that got the id from intern()/find() or from a view sees the bytes.
  *slotForWrite(id) = sh_str{bytes, s.size()};
  shard.ids.emplace(std::string_view(bytes, s.size()), id);
  return id;
}

sh_id Interner::intern(std::string_view s) {
  Shard& shard = shards_[shardOf(s)];
  {
    std::shared_lock lock(shard.mu);
    auto it = shard.ids.find(s);
    if (it != shard.ids.end()) {
      return it->second;
    }
  }
  std::unique_lock lock(shard.mu);
  auto it = shard.ids.find(s);
  if (it != shard.ids.end()) {
    return it->second;
  }
  return insertLocked(shard, s, SH_ID_NONE);
}

sh_id Interner::find(std::string_view s) const {
  const Shard& shard = shards_[shardOf(s)];
  std::shared_lock lock(shard.mu);
  auto it = shard.ids.find(s);
  return it == shard.ids.end() ? SH_ID_NONE : it->second;
}

sh_str Interner::str(sh_id id) const {
  const sh_str* s = slot(id);
  if (s == nullptr || s->ptr == nullptr) {
    return sh_str{kEmpty, 0};
  }
  return *s;
}

Interner& interner() {
  // Never destroyed: views handed to plugins may outlive static destruction order.
  static Interner* instance = new Interner();
  return *instance;
}

}  // namespace sh::model
