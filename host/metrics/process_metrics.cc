#include "host/metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace sh::metrics {

namespace {

FamilySnapshot single(std::string name, std::string help, MetricType type, double value) {
  FamilySnapshot f;
  f.desc = {std::move(name), std::move(help), type, {}};
  ChildSnapshot c;
  c.value = value;
  f.children.push_back(std::move(c));
  return f;
}

// The system's boot time (/proc/stat btime), in seconds since the epoch; 0 when unknown.
double bootTime() {
  std::ifstream in("/proc/stat");
  std::string key;
  while (in >> key) {
    if (key == "btime") {
      double seconds = 0;
      in >> seconds;
      return seconds;
    }
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

}  // namespace

std::vector<FamilySnapshot> processFamilies() {
  std::vector<FamilySnapshot> out;
  const auto ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const auto pageSize = static_cast<double>(::sysconf(_SC_PAGESIZE));
  // /proc/self/stat: the fields after the command name in parentheses (which may hold
  // spaces), numbered as proc(5) numbers them: 14 utime, 15 stime, 22 starttime, 23 vsize,
  // 24 rss (pages).
  std::ifstream statFile("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(statFile)), std::istreambuf_iterator<char>());
  if (const std::size_t close = stat.rfind(')'); close != std::string::npos && ticks > 0) {
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    double values[25] = {};
    for (int n = 3; n <= 24 && fields >> field; ++n) {
      if (n >= 14) {
        values[n] = std::strtod(field.c_str(), nullptr);
      }
    }
    out.push_back(single("process_cpu_seconds_total",
                         "Total user and system CPU time spent in seconds.", MetricType::kCounter,
                         (values[14] + values[15]) / ticks));
    out.push_back(single("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                         MetricType::kGauge, values[23]));
    out.push_back(single("process_resident_memory_bytes", "Resident memory size in bytes.",
                         MetricType::kGauge, values[24] * pageSize));
    if (const double boot = bootTime(); boot > 0) {
      out.push_back(single("process_start_time_seconds",
                           "Start time of the process since unix epoch in seconds.",
                           MetricType::kGauge, boot + values[22] / ticks));
    }
  }
  std::error_code ec;
  double open = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++open;
  }
  if (!ec) {
    out.push_back(
        single("process_open_fds", "Number of open file descriptors.", MetricType::kGauge, open));
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    out.push_back(single("process_max_fds", "Maximum number of open file descriptors.",
                         MetricType::kGauge, static_cast<double>(limit.rlim_cur)));
  }
  return out;
}

}  // namespace sh::metrics
