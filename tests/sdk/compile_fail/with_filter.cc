// The control for missing_filter.cc: the same plugin with its filter method compiles, so the
// failure there is the missing method and not the test's set-up.
#include <schedhost/plugin.hpp>

namespace compile_fail {

class WithFilter : public schedhost::FilterPlugin {
 public:
  schedhost::Status filter(schedhost::Cycle&, const sh_pod&, const sh_node_info&) {
    return schedhost::Status::success();
  }
};

}  // namespace compile_fail

SCHEDHOST_PLUGIN(compile_fail::WithFilter, "WithFilter", "1.0.0")
