#include "host/model/arena.h"

namespace sh::model {

sh_str Arena::str(std::string_view s) {
  auto* out = static_cast<char*>(resource_.allocate(s.size() + 1, 1));
  if (!s.empty()) {
    std::memcpy(out, s.data(), s.size());
  }
  out[s.size()] = '\0';
  return sh_str{out, s.size()};
}

}  // namespace sh::model
