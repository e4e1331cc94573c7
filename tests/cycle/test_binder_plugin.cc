// TestBinder: a Bind plugin for the scheduler tests. Bind fails the first `failures` times
// for each pod, then answers Skip so the next Bind plugin (DefaultBinder) binds. Every
// Reserve, Unreserve and Bind call is appended to the file `log` as one line
// "<point> <namespace>/<name> <node>" (bind lines end in " failed" or " skipped"), so a test
// sees what the host called.
//
// args: {"failures": 1, "log": "/tmp/.../binder.log"}
//
// Extension points: Reserve, Bind.
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>

#include <schedhost/plugin.hpp>

namespace {

constexpr const char* kName = "TestBinder";

std::string str(sh_str s) { return std::string(s.ptr, s.len); }

class TestBinder : public schedhost::ReservePlugin, public schedhost::BindPlugin {
 public:
  TestBinder(schedhost::Host&, const schedhost::Args& args) {
    failures_ = args["failures"].asInt();
    log_ = std::string(args["log"].asString());
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
  std::mutex mu_;
  std::map<std::string, int64_t> binds_;  // uid -> Bind calls
};

static_assert(std::is_base_of_v<schedhost::BindPlugin, TestBinder>);

}  // namespace

SCHEDHOST_PLUGIN(TestBinder, kName, "0.0.1")
