// The reference plugin: fits on one screen, builds as a .so with schedhost_add_plugin.
//
// Filter: keeps pods off nodes labelled `example.com/maintenance=true`.
// Score:  prefers nodes with fewer pods (100 on an empty node, down by `perPod` per pod).
#include <algorithm>

#include <schedhost/plugin.hpp>

class Hello : public schedhost::FilterPlugin, public schedhost::ScorePlugin {
 public:
  static constexpr const char* kDefaultArgsJson = R"({"perPod": 10})";

  Hello(schedhost::Host& host, const schedhost::Args& args)
      : maintenance_(host.intern("example.com/maintenance")), yes_(host.intern("true")) {
    schedhost::Args perPod = args["perPod"];
    if (!perPod.isInt() || perPod.asInt() < 0 || perPod.asInt() > 100) {
      perPod.error("must be an integer in [0, 100]");
    }
    perPod_ = perPod.asInt();
  }

  schedhost::Status filter(schedhost::Cycle&, const sh_pod&, const sh_node_info& ni) {
    const sh_node& node = *ni.node;
    for (uint32_t i = 0; i < node.label_count; ++i) {
      if (node.labels[i].key == maintenance_ && node.labels[i].value == yes_) {
        return schedhost::Status::unresolvable("node(s) are in maintenance");
      }
    }
    return {};
  }

  schedhost::Status score(schedhost::Cycle&, const sh_pod&, const sh_node_info& ni,
                          int64_t& score) {
    score = std::max<int64_t>(0, SH_MAX_NODE_SCORE - perPod_ * ni.pod_count);
    return {};
  }

 private:
  sh_id maintenance_;
  sh_id yes_;
  int64_t perPod_ = 10;
};

SCHEDHOST_PLUGIN(Hello, "Hello", "1.0.0")
