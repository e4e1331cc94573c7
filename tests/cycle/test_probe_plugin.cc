// TestProbe: a Filter and PreScore plugin for the scheduler tests of upstream's cycle rules.
// Filter returns Error for pods whose name starts with `errorPodPrefix` on the node named
// `errorNode`, and passes everything else. PreScore appends "prescore <namespace>/<name> <n>"
// (n: the nodes it was given) to the file `log`, so a test sees whether the host ran it.
//
// args: {"errorPodPrefix": "broken", "errorNode": "n3", "log": "/tmp/.../probe.log"}
//
// Extension points: Filter, PreScore.
#include <fstream>
#include <mutex>
#include <string>
#include <string_view>

#include <schedhost/plugin.hpp>

namespace {

constexpr const char* kName = "TestProbe";

std::string_view view(sh_str s) { return {s.ptr, s.len}; }

class TestProbe : public schedhost::FilterPlugin, public schedhost::PreScorePlugin {
 public:
  TestProbe(schedhost::Host&, const schedhost::Args& args)
      : errorPodPrefix_(args["errorPodPrefix"].asString()),
        errorNode_(args["errorNode"].asString()),
        log_(args["log"].asString()) {}

  schedhost::Status filter(schedhost::Cycle&, const sh_pod& pod, const sh_node_info& node) {
    if (!errorPodPrefix_.empty() &&
        view(pod.name).substr(0, errorPodPrefix_.size()) == errorPodPrefix_ &&
        view(node.node->name) == errorNode_) {
      return schedhost::Status::error("TestProbe: injected Filter error on " + errorNode_);
    }
    return schedhost::Status();
  }

  schedhost::Status preScore(schedhost::Cycle&, const sh_pod& pod, const sh_node_info* const*,
                             std::size_t n) {
    if (!log_.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      std::ofstream(log_, std::ios::app)
          << "prescore " << view(pod.namespace_) << "/" << view(pod.name) << " " << n << "\n";
    }
    return schedhost::Status();
  }

 private:
  std::string errorPodPrefix_;
  std::string errorNode_;
  std::string log_;
  std::mutex mu_;
};

}  // namespace

SCHEDHOST_PLUGIN(TestProbe, kName, "0.0.1")
