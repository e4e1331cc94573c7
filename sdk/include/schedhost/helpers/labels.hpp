// Ids and labels: comparing interned ids, binary search in the id-sorted arrays of plugin.h,
// and Go's integer parsing for label values.
//
//   canonicalId, sameId   the empty string as SH_ID_NONE or SH_ID_EMPTY
//   findById              any array sorted by an sh_id member (labels, scalars, image states)
//   findLabel, containsId
//   parseInt64            strconv.ParseInt(s, 10, 64)
#ifndef SCHEDHOST_HELPERS_LABELS_HPP
#define SCHEDHOST_HELPERS_LABELS_HPP

#include <schedhost/plugin.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace schedhost {

// The empty string may reach a plugin as SH_ID_NONE or as SH_ID_EMPTY; compare through this.
constexpr sh_id canonicalId(sh_id id) noexcept { return id == SH_ID_EMPTY ? SH_ID_NONE : id; }
constexpr bool sameId(sh_id a, sh_id b) noexcept { return canonicalId(a) == canonicalId(b); }

// The element of `items` (`count` of them, sorted by their sh_id member `key`) whose key is
// `id`, or nullptr. Every id-sorted array of plugin.h is searched with it, e.g.
// findById(ni.image_states, ni.image_state_count, &sh_image_state::name, image).
template <typename T>
inline const T* findById(const T* items, uint32_t count, sh_id T::*key, sh_id id) noexcept {
  uint32_t lo = 0;
  uint32_t hi = count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (items[mid].*key < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return (lo < count && items[lo].*key == id) ? &items[lo] : nullptr;
}

// The label with `key` in an array sorted by key id, or nullptr.
inline const sh_label* findLabel(const sh_label* labels, uint32_t count, sh_id key) noexcept {
  return findById(labels, count, &sh_label::key, key);
}
inline const sh_label* findLabel(const sh_node& node, sh_id key) noexcept {
  return findLabel(node.labels, node.label_count, key);
}

inline bool containsId(const sh_id* ids, uint32_t count, sh_id id) noexcept {
  for (uint32_t i = 0; i < count; ++i) {
    if (sameId(ids[i], id)) {
      return true;
    }
  }
  return false;
}

// Go's strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits, no overflow.
inline bool parseInt64(std::string_view s, int64_t& out) noexcept {
  if (s.empty()) {
    return false;
  }
  std::size_t i = 0;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    i = 1;
    if (s.size() == 1) {
      return false;
    }
  }
  // Accumulate as a negative number so that INT64_MIN parses.
  const int64_t limit = negative ? INT64_MIN : -INT64_MAX;
  int64_t acc = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c < '0' || c > '9') {
      return false;
    }
    int digit = c - '0';
    if (acc < (limit + digit) / 10) {
      return false;
    }
    acc = acc * 10 - digit;
  }
  out = negative ? acc : -acc;
  return true;
}

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_LABELS_HPP
