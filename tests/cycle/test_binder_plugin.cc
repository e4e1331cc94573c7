// TestBinder: a Bind plugin for the scheduler tests. Bind fails the first `failures` times
// for each pod, then answers Skip so the next Bind plugin (DefaultBinder) binds. Every
// Reserve, Unreserve and Bind call is appended to the file `log` as one line
// "<point> <namespace>/<name> <node>" (bind lines end in " failed" or " skipped"), so a test
// sees what the host called.
//
// PreBind sleeps `preBindSleepMs` for pods whose name starts with `slowPrefix`, and rejects
// (Unschedulable, "TestBinder: rejected in PreBind") pods whose name starts with
// `rejectPrefix`; both empty by default.
//
// args: {"failures": 1, "log": "/tmp/.../binder.log", "slowPrefix": "slow",
//        "preBindSleepMs": 2000, "rejectPrefix": "bad"}
//
// Extension points: Reserve, PreBind, Bind.
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>

#include <schedhost/plugin.hpp>

namespace {

constexpr const char* kName = "TestBinder";

std::string str(sh_str s) { return std::string(s.ptr, s.len); }

bool startsWith(sh_str s, const std::string& prefix) {
  return !prefix.empty() && std::string_view(s.ptr, s.len).substr(0, prefix.size()) == prefix;
}

class TestBinder : public schedhost::ReservePlugin,
                   public schedhost::PreBindPlugin,
                   public schedhost::BindPlugin {
 public:
  TestBinder(schedhost::Host&, const schedhost::Args& args) {
    failures_ = args["failures"].asInt();
    log_ = std::string(args["log"].asString());
    slowPrefix_ = std::string(args["slowPrefix"].asString());
    preBindSleepMs_ = args["preBindSleepMs"].asInt();
    rejectPrefix_ = std::string(args["rejectPrefix"].asString());
  }

  schedhost::Status preBind(schedhost::Cycle&, const sh_pod& pod, std::string_view node) {
    if (startsWith(pod.name, slowPrefix_)) {
      write("prebind-sleep", pod, node, "");
      std::this_thread::sleep_for(std::chrono::milliseconds(preBindSleepMs_));
    }
    if (startsWith(pod.name, rejectPrefix_)) {
      write("prebind", pod, node, " rejected");
      return schedhost::Status::unschedulable("TestBinder: rejected in PreBind");
    }
    return schedhost::Status();
  }

  schedhost::Status reserve(schedhost::Cycle&, const sh_pod& pod, std::string_view node) {
    write("reserve", pod, node, "");
    return schedhost::Status();
  }
  void unreserve(schedhost::Cycle&, const sh_pod& pod, std::string_view node) {
    write("unreserve", pod, node, "");
  }

  schedhost::Status bind(schedhost::Cycle&, const sh_pod& pod, std::string_view node) {
    int64_t attempt = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      attempt = ++binds_[str(pod.uid)];
    }
    if (attempt <= failures_) {
      write("bind", pod, node, " failed");
      return schedhost::Status::error("TestBinder: injected bind failure " +
                                      std::to_string(attempt) + " of " + std::to_string(failures_));
    }
    write("bind", pod, node, " skipped");
    return schedhost::Status::skip();
  }

 private:
  void write(std::string_view point, const sh_pod& pod, std::string_view node,
             std::string_view suffix) {
    if (log_.empty()) {
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    std::ofstream out(log_, std::ios::app);
    out << point << " " << str(pod.namespace_) << "/" << str(pod.name) << " " << node << suffix
        << "\n";
  }

  int64_t failures_ = 0;
  std::string log_;
  std::string slowPrefix_;
  int64_t preBindSleepMs_ = 0;
  std::string rejectPrefix_;
  std::mutex mu_;
  std::map<std::string, int64_t> binds_;  // uid -> Bind calls
};

static_assert(std::is_base_of_v<schedhost::BindPlugin, TestBinder>);

}  // namespace

SCHEDHOST_PLUGIN(TestBinder, kName, "0.0.1")
