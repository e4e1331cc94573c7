// IdMap: an open-addressing hash map from 64-bit keys to values, cheap to copy.
#ifndef SCHEDHOST_HELPERS_ID_MAP_HPP
#define SCHEDHOST_HELPERS_ID_MAP_HPP

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace schedhost {

// An open-addressing hash map from 64-bit keys (ids, or two ids packed into one) to V, for
// counts that a cycle state copies: a copy is one allocation. Entries are never erased; the
// key kNoKey (all ones) is reserved. forEach visits entries in slot order, which depends only
// on the sequence of insertions.
template <typename V>
class IdMap {
 public:
  static constexpr uint64_t kNoKey = ~uint64_t{0};

  const V* find(uint64_t key) const noexcept {
    if (size_ == 0) {
      return nullptr;
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = slotOf(key);; i = (i + 1) & mask) {
      if (slots_[i].key == key) {
        return &slots_[i].value;
      }
      if (slots_[i].key == kNoKey) {
        return nullptr;
      }
    }
  }
  V* find(uint64_t key) noexcept {
    return const_cast<V*>(static_cast<const IdMap&>(*this).find(key));
  }

  // The entry of `key`, inserted as V{} when absent.
  V& operator[](uint64_t key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) {
      grow();
    }
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = slotOf(key);
    while (slots_[i].key != key && slots_[i].key != kNoKey) {
      i = (i + 1) & mask;
    }
    if (slots_[i].key == kNoKey) {
      slots_[i].key = key;
      ++size_;
    }
    return slots_[i].value;
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  template <typename Fn>
  void forEach(Fn&& fn) const {
    for (const Slot& s : slots_) {
      if (s.key != kNoKey) {
        fn(s.key, s.value);
      }
    }
  }

 private:
  struct Slot {
    uint64_t key = kNoKey;
    V value{};
  };

  std::size_t slotOf(uint64_t key) const noexcept {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 8 : old.size() * 2;
    slots_.assign(capacity, Slot{});
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) {
      --shift_;
    }
    size_ = 0;
    for (Slot& s : old) {
      if (s.key != kNoKey) {
        (*this)[s.key] = std::move(s.value);
      }
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_ID_MAP_HPP
