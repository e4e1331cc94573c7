// TestGang: a coscheduling-like plugin for the PodsToActivate tests (cycle_activate_pod,
// upstream schedule_one.go: PodsToActivate). Everything is driven by the pod's labels:
//
//   gang=<name>, gang-min=<N>   a gang of N pods:
//     PreEnqueue  remembers the pod as a member of its gang (namespace/name);
//     PreFilter   rejects the pod (Unschedulable) while fewer than N members are known and no
//                 member waits on Permit or was let through;
//     Permit      counts the members waiting or let through, and this pod: below N it waits
//                 (timeoutMs, default 10000) and asks the host to activate every other known
//                 member that is not waiting or through; the N-th allows all waiting members
//                 and passes;
//     Unreserve   forgets the pod's wait.
//   activate-in-reserve=<pod>    Reserve asks to activate ns/<pod> (the pod's namespace).
//   activate-in-post-bind=<pod>  PostBind asks the same.
//   permit-reject=true           Permit rejects the pod (after any activation it asked for).
//
// A rejected pod is retried only on Node/Add (no hint: always Queue), which the tests never
// send: before the 5-minute leftover flush, only an activation brings it back.
//
// Extension points: PreEnqueue, PreFilter, Reserve, Permit, PostBind, EnqueueExtensions.
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <schedhost/plugin.hpp>

namespace {

constexpr const char* kName = "TestGang";

std::string str(sh_str s) { return s.len == 0 ? std::string() : std::string(s.ptr, s.len); }

// The value of label `key` on the pod, or "".
std::string labelOf(const sh_pod& pod, std::string_view key) {
  for (uint32_t i = 0; i < pod.label_count; ++i) {
    if (schedhost::view(pod.labels[i].key_str) == key) {
      return str(pod.labels[i].value_str);
    }
  }
  return std::string();
}

struct Member {
  std::string ns;
  std::string name;
  bool operator<(const Member& o) const { return std::tie(ns, name) < std::tie(o.ns, o.name); }
  bool operator==(const Member& o) const { return ns == o.ns && name == o.name; }
};

Member memberOf(const sh_pod& pod) { return Member{str(pod.namespace_), str(pod.name)}; }

struct Gang {
  std::set<Member> known;                 // seen by PreEnqueue
  std::map<Member, std::string> waiting;  // waiting on Permit -> uid
  std::set<Member> through;               // let through Permit (allowed or passed)
};

class TestGang : public schedhost::PreEnqueuePlugin,
                 public schedhost::PreFilterPlugin,
                 public schedhost::ReservePlugin,
                 public schedhost::PermitPlugin,
                 public schedhost::PostBindPlugin,
                 public schedhost::EnqueueExtensions {
 public:
  TestGang(schedhost::Host& host, const schedhost::Args& args) : host_(host) {
    timeoutMs_ = args["timeoutMs"].present() ? args["timeoutMs"].asInt() : 10000;
  }

  std::vector<schedhost::EventRegistration> eventsToRegister() const {
    return {{SH_RESOURCE_NODE, SH_ACTION_ADD, false}};
  }

  schedhost::Status preEnqueue(const sh_pod& pod) {
    const std::string gang = labelOf(pod, "gang");
    if (!gang.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      gangs_[gang].known.insert(memberOf(pod));
    }
    return schedhost::Status();
  }

  schedhost::Status preFilter(schedhost::Cycle&, const sh_pod& pod, schedhost::PreFilterResult&) {
    const std::string gang = labelOf(pod, "gang");
    if (gang.empty()) {
      return schedhost::Status();
    }
    const int64_t min = minOf(pod);
    std::lock_guard<std::mutex> lock(mu_);
    const Gang& g = gangs_[gang];
    if (static_cast<int64_t>(g.known.size()) < min && g.waiting.empty() && g.through.empty()) {
      return schedhost::Status::unschedulable("gang " + gang + " has " +
                                              std::to_string(g.known.size()) + " of " +
                                              std::to_string(min) + " members");
    }
    return schedhost::Status();
  }

  schedhost::Status reserve(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view) {
    if (const std::string other = labelOf(pod, "activate-in-reserve"); !other.empty()) {
      cycle.activatePod(schedhost::view(pod.namespace_), other);
    }
    return schedhost::Status();
  }
  void unreserve(schedhost::Cycle&, const sh_pod& pod, std::string_view) {
    const std::string gang = labelOf(pod, "gang");
    if (gang.empty()) {
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    Gang& g = gangs_[gang];
    g.waiting.erase(memberOf(pod));
    g.through.erase(memberOf(pod));
  }

  schedhost::Status permit(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view,
                           int64_t& timeoutMs) {
    if (labelOf(pod, "permit-reject") == "true") {
      return schedhost::Status::unschedulable("rejected by label permit-reject");
    }
    const std::string gang = labelOf(pod, "gang");
    if (gang.empty()) {
      return schedhost::Status();
    }
    const int64_t min = minOf(pod);
    const Member self = memberOf(pod);
    std::vector<Member> activate;
    std::vector<std::string> allow;
    bool passes = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Gang& g = gangs_[gang];
      const auto count = static_cast<int64_t>(g.waiting.size() + g.through.size()) + 1;
      if (count < min) {
        g.waiting[self] = str(pod.uid);
        for (const Member& m : g.known) {
          if (!(m == self) && g.waiting.count(m) == 0 && g.through.count(m) == 0) {
            activate.push_back(m);
          }
        }
      } else {
        for (auto& [member, uid] : g.waiting) {
          g.through.insert(member);
          allow.push_back(uid);
        }
        g.waiting.clear();
        g.through.insert(self);
        passes = true;
      }
    }
    // Host services outside the plugin's lock.
    for (const Member& m : activate) {
      cycle.activatePod(m.ns, m.name);
    }
    for (const std::string& uid : allow) {
      host_.allowWaitingPod(uid, kName);
    }
    if (passes) {
      return schedhost::Status();
    }
    timeoutMs = timeoutMs_;
    return schedhost::Status(SH_WAIT);
  }

  void postBind(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view) {
    if (const std::string other = labelOf(pod, "activate-in-post-bind"); !other.empty()) {
      cycle.activatePod(schedhost::view(pod.namespace_), other);
    }
  }

 private:
  static int64_t minOf(const sh_pod& pod) {
    const std::string text = labelOf(pod, "gang-min");
    int64_t n = 0;
    for (char c : text) {
      if (c < '0' || c > '9') {
        return 1;
      }
      n = n * 10 + (c - '0');
    }
    return n > 0 ? n : 1;
  }

  schedhost::Host host_;
  int64_t timeoutMs_ = 0;
  std::mutex mu_;
  std::map<std::string, Gang> gangs_;
};

}  // namespace

SCHEDHOST_PLUGIN(TestGang, kName, "0.0.1")
