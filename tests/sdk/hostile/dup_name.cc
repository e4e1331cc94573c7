// libdup_name.so: a valid plugin that calls itself "NodeName", the name of a default plugin.
// A host that also loads the real NodeName must refuse one of them, quoting both files.
#include <schedhost/plugin.hpp>

namespace hostile {

constexpr const char* kName = "NodeName";

class DuplicateNodeName : public schedhost::FilterPlugin {
 public:
  schedhost::Status filter(schedhost::Cycle&, const sh_pod&, const sh_node_info&) {
    return schedhost::Status::success();
  }
};

}  // namespace hostile

SCHEDHOST_PLUGIN(hostile::DuplicateNodeName, hostile::kName, "0.0.1")
