// SwapProbe: one plugin source built twice, as two builds of the same plugin at different
// paths, so a test can switch a live scheduler from one build to the other and tell from the
// bindings which build scored a pod.
//
// Build v1 (SWAP_PROBE_OFFSET 0, version 1.0.0) and build v2 (SWAP_PROBE_OFFSET 1, version
// 2.0.0) are both named SwapProbe and both built as libswap_probe.so, in two directories.
//
// args: {
//   "node": 0   // a non-negative integer (default 0)
// }
//
// Score: 100 on the node named "big-" + (node + SWAP_PROBE_OFFSET), 0 on every other node.
//
// Extension points: Score, EnqueueExtensions (Node/Add, no hint).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <schedhost/plugin.hpp>

#ifndef SWAP_PROBE_OFFSET
#error "SWAP_PROBE_OFFSET must be defined (0 for build v1, 1 for build v2)"
#endif
#ifndef SWAP_PROBE_VERSION
#error "SWAP_PROBE_VERSION must be defined (\"1.0.0\" or \"2.0.0\")"
#endif

namespace {

constexpr const char* kName = "SwapProbe";
constexpr const char* kVersion = SWAP_PROBE_VERSION;
constexpr int64_t kOffset = SWAP_PROBE_OFFSET;

class SwapProbe : public schedhost::ScorePlugin, public schedhost::EnqueueExtensions {
 public:
  static constexpr const char* kDefaultArgsJson = R"({"node": 0})";

  SwapProbe(schedhost::Host&, const schedhost::Args& args) {
    schedhost::Args node = args["node"];
    int64_t index = 0;
    if (node.present()) {
      if (!node.isInt() || node.asInt() < 0) {
        node.error("must be a non-negative integer");
      } else {
        index = node.asInt();
      }
    }
    target_ = "big-" + std::to_string(index + kOffset);
  }

  std::vector<schedhost::EventRegistration> eventsToRegister() const {
    return {{SH_RESOURCE_NODE, SH_ACTION_ADD, false}};
  }

  schedhost::Status score(schedhost::Cycle&, const sh_pod&, const sh_node_info& ni,
                          int64_t& score) {
    const sh_str& name = ni.node->name;
    score = std::string_view(name.ptr, name.len) == target_ ? SH_MAX_NODE_SCORE : 0;
    return {};
  }

 private:
  std::string target_;  // the name of the one node this build prefers
};

}  // namespace

SCHEDHOST_PLUGIN(SwapProbe, kName, kVersion)
