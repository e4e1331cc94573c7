// @NAME@: a schedhost plugin.
//
// Filter: keeps pods off nodes labelled example.com/@KEBAB@=avoid.
//
// To add an extension point, derive from its tag (schedhost::ScorePlugin, ...) and write the
// method its comment in <schedhost/plugin.hpp> names; a missing method is a compile error.
#include <schedhost/plugin.hpp>

class @NAME@ : public schedhost::FilterPlugin {
 public:
  // Strings are interned once here; filter() compares integers.
  @NAME@(schedhost::Host& host, const schedhost::Args& /*args*/)
      : key_(host.intern("example.com/@KEBAB@")), avoid_(host.intern("avoid")) {}

  schedhost::Status filter(schedhost::Cycle& /*cycle*/, const sh_pod& /*pod*/,
                           const sh_node_info& nodeInfo) {
    const sh_node& node = *nodeInfo.node;
    for (uint32_t i = 0; i < node.label_count; ++i) {
      if (node.labels[i].key == key_ && node.labels[i].value == avoid_) {
        return schedhost::Status::unschedulable("node(s) are avoided by @NAME@");
      }
    }
    return {};
  }

 private:
  sh_id key_;
  sh_id avoid_;
};

SCHEDHOST_PLUGIN(@NAME@, "@NAME@", "0.1.0")
