// TestPermit: a Permit plugin for the scheduler tests. Permit answers Wait, so the pod's
// binding cycle blocks in WaitOnPermit until a test (through Scheduler::waitingPods()) or
// the plugin itself (through the host API) allows or rejects it, or the timeout fires.
//
// args: {
//   "timeoutMs": 100,     // the Wait timeout (default 10000)
//   "podPrefix": "gang-", // only pods whose name starts with this wait; others pass
//   "quorum": 3,          // gang mode: the pod that makes `quorum` pods waiting or arriving
//                         //   allows every waiting one through Host::allowWaitingPod and
//                         //   passes itself; Unreserve forgets a pod
//   "requeueOnPodDelete": true  // also register Pod/Delete (default: Node/Add only)
// }
//
// A pod it rejected is retried on the events it registered (no hints: always Queue), as a gang
// plugin registers the events that can complete its gang.
//
// Extension points: Reserve (for Unreserve), Permit, EnqueueExtensions.
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <schedhost/plugin.hpp>

namespace {

constexpr const char* kName = "TestPermit";

std::string str(sh_str s) { return std::string(s.ptr, s.len); }

class TestPermit : public schedhost::ReservePlugin,
                   public schedhost::PermitPlugin,
                   public schedhost::EnqueueExtensions {
 public:
  TestPermit(schedhost::Host& host, const schedhost::Args& args) : host_(host) {
    timeoutMs_ = args["timeoutMs"].present() ? args["timeoutMs"].asInt() : 10000;
    prefix_ = std::string(args["podPrefix"].asString());
    quorum_ = args["quorum"].present() ? args["quorum"].asInt() : 0;
    requeueOnPodDelete_ = args["requeueOnPodDelete"].asBool();
  }

  std::vector<schedhost::EventRegistration> eventsToRegister() const {
    std::vector<schedhost::EventRegistration> events = {{SH_RESOURCE_NODE, SH_ACTION_ADD, false}};
    if (requeueOnPodDelete_) {
      events.push_back({SH_RESOURCE_POD, SH_ACTION_DELETE, false});
    }
    return events;
  }

  schedhost::Status reserve(schedhost::Cycle&, const sh_pod&, std::string_view) {
    return schedhost::Status();
  }
  void unreserve(schedhost::Cycle&, const sh_pod& pod, std::string_view) {
    std::lock_guard<std::mutex> lock(mu_);
    waiting_.erase(str(pod.uid));
  }

  schedhost::Status permit(schedhost::Cycle&, const sh_pod& pod, std::string_view,
                           int64_t& timeoutMs) {
    if (str(pod.name).rfind(prefix_, 0) != 0) {
      return schedhost::Status();
    }
    if (quorum_ > 0) {
      std::set<std::string> release;
      bool reached = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        reached = static_cast<int64_t>(waiting_.size()) + 1 >= quorum_;
        if (reached) {
          release.swap(waiting_);
        } else {
          waiting_.insert(str(pod.uid));
        }
      }
      if (reached) {
        for (const std::string& uid : release) {
          host_.allowWaitingPod(uid, kName);
        }
        return schedhost::Status();
      }
    }
    timeoutMs = timeoutMs_;
    return schedhost::Status(SH_WAIT);
  }

 private:
  schedhost::Host host_;
  int64_t timeoutMs_ = 0;
  std::string prefix_;
  int64_t quorum_ = 0;
  bool requeueOnPodDelete_ = false;
  std::mutex mu_;
  std::set<std::string> waiting_;  // uids of the pods waiting on the quorum
};

static_assert(std::is_base_of_v<schedhost::PermitPlugin, TestPermit>);

}  // namespace

SCHEDHOST_PLUGIN(TestPermit, kName, "0.0.1")
