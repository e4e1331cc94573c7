// A monotonic arena for the flat view structs of one Pod or Node: arrays of plain C structs
// and string bytes are copied in once at parse time and freed together with their owner.
#ifndef SCHEDHOST_HOST_MODEL_ARENA_H
#define SCHEDHOST_HOST_MODEL_ARENA_H

#include <schedhost/plugin.h>

#include <cstring>
#include <memory_resource>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace sh::model {

class Arena {
 public:
  explicit Arena(std::size_t initialBytes = 1024) : resource_(initialBytes) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Copies `s` (plus a trailing NUL) into the arena.
  sh_str str(std::string_view s);

  // Copies `items` into the arena; nullptr when empty.
  template <class T>
  const T* array(std::span<const T> items) {
    static_assert(std::is_trivially_copyable_v<T>, "views hold plain C structs only");
    if (items.empty()) {
      return nullptr;
    }
    void* out = resource_.allocate(items.size_bytes(), alignof(T));
    std::memcpy(out, items.data(), items.size_bytes());
    return static_cast<const T*>(out);
  }
  template <class T>
  const T* array(const std::vector<T>& items) {
    return array(std::span<const T>(items));
  }

  // Copies one struct into the arena.
  template <class T>
  const T* one(const T& item) {
    return array(std::span<const T>(&item, 1));
  }

 private:
  std::pmr::monotonic_buffer_resource resource_;
};

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_ARENA_H
