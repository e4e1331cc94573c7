// What the chaos plugins share: the dice that decide each fault, the attempt number both read
// from the cycle state, and the counts they write out when they are destroyed.
//
// A fault is a pure function of (seed, pod uid, attempt, site): the same seed gives the same
// faults to the same pod on the same attempt, whatever the threads do, so a run is reproducible
// as far as the order of attempts is. SDK headers only, like any plugin.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

#include <schedhost/plugin.hpp>

namespace chaos {

// The attempt of the pod a cycle is for, as ChaosCycle's PreFilter counted it.
struct Attempt {
  uint64_t number = 0;
};
inline constexpr char kAttemptKey[] = "ChaosCycle/attempt";

inline uint64_t mix(uint64_t x) {
  // splitmix64's finaliser.
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t hashText(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (char c : s) {
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  return h;
}

// A uniform draw in [0, 1) for one decision.
class Dice {
 public:
  explicit Dice(uint64_t seed) : seed_(seed) {}

  double roll(std::string_view uid, uint64_t attempt, std::string_view site,
              std::string_view extra = {}) const {
    uint64_t h = mix(seed_ ^ hashText(uid));
    h = mix(h ^ attempt);
    h = mix(h ^ hashText(site));
    if (!extra.empty()) {
      h = mix(h ^ hashText(extra));
    }
    return static_cast<double>(h >> 11) * 0x1.0p-53;
  }

 private:
  uint64_t seed_;
};

// A probability from the plugin's args: `name` in [0, 1], `fallback` when absent.
inline double probability(const schedhost::Args& args, const char* name, double fallback) {
  const schedhost::Args a = args[name];
  if (!a.present()) {
    return fallback;
  }
  const double p = a.asDouble();
  if (!a.isNumber() || p < 0 || p > 1) {
    a.error("must be a number between 0 and 1");
    return 0;
  }
  return p;
}

inline std::string_view text(sh_str s) { return schedhost::view(s); }

// The value of label `key` of the pod, or empty.
inline std::string_view label(const sh_pod& pod, std::string_view key) {
  for (uint32_t i = 0; i < pod.label_count; ++i) {
    if (schedhost::view(pod.labels[i].key_str) == key) {
      return schedhost::view(pod.labels[i].value_str);
    }
  }
  return {};
}

// Counts by fault kind, written as "kind count" lines.
template <std::size_t N>
class Counts {
 public:
  explicit Counts(const std::array<const char*, N>& names) : names_(names) {}
  void add(std::size_t kind) { counts_[kind].fetch_add(1, std::memory_order_relaxed); }
  void write(const std::string& path) const {
    if (path.empty()) {
      return;
    }
    std::ofstream out(path);
    for (std::size_t i = 0; i < N; ++i) {
      out << names_[i] << " " << counts_[i].load() << "\n";
    }
  }

 private:
  std::array<const char*, N> names_;
  std::array<std::atomic<uint64_t>, N> counts_{};
};

}  // namespace chaos
