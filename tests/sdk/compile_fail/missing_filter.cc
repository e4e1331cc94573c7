// Must NOT compile: the class is tagged FilterPlugin but has no filter method, so
// SCHEDHOST_PLUGIN cannot wire its Filter slot. Built only by the compile_fail test.
#include <schedhost/plugin.hpp>

namespace compile_fail {

class MissingFilter : public schedhost::FilterPlugin {
 public:
  schedhost::Status score(schedhost::Cycle&, const sh_pod&, const sh_node_info&, int64_t&) {
    return schedhost::Status::success();
  }
};

}  // namespace compile_fail

SCHEDHOST_PLUGIN(compile_fail::MissingFilter, "MissingFilter", "1.0.0")
