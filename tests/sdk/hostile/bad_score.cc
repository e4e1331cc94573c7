// libbad_score.so: a Score plugin (no NormalizeScore) that answers 1000, outside [0, 100].
// The host must turn it into an Error naming the plugin.
#include <schedhost/plugin.hpp>

namespace hostile {

constexpr const char* kName = "BadScore";

class BadScore : public schedhost::ScorePlugin {
 public:
  schedhost::Status score(schedhost::Cycle&, const sh_pod&, const sh_node_info&, int64_t& s) {
    s = 1000;
    return schedhost::Status::success();
  }
};

}  // namespace hostile

SCHEDHOST_PLUGIN(hostile::BadScore, hostile::kName, "1.0.0")
