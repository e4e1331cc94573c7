// libthrows.so: a C++ plugin whose Filter throws std::runtime_error("boom"). The SDK's
// trampoline must turn it into an Error status, never let it unwind into the host.
#include <schedhost/plugin.hpp>

#include <stdexcept>

namespace hostile {

constexpr const char* kName = "Throws";

class Throws : public schedhost::FilterPlugin {
 public:
  schedhost::Status filter(schedhost::Cycle&, const sh_pod&, const sh_node_info&) {
    throw std::runtime_error("boom");
  }
};

}  // namespace hostile

SCHEDHOST_PLUGIN(hostile::Throws, hostile::kName, "1.0.0")
