#include "host/cli/logging.h"

#include <chrono>
#include <cstdio>
#include <sstream>

#include <spdlog/details/log_msg.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

namespace sh::cli {

namespace {

class KlogJsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(msg.time.time_since_epoch()).count();
    std::array<char, 48> ts{};
    std::snprintf(ts.data(), ts.size(), "%lld.%06lld", static_cast<long long>(micros / 1000000),
                  static_cast<long long>(micros % 1000000));
    std::string line = "{\"ts\":";
    line += ts.data();
    if (!msg.source.empty()) {
      line += ",\"caller\":";
      line += boost::json::serialize(boost::json::string(std::string(msg.source.filename) + ":" +
                                                         std::to_string(msg.source.line)));
    }
    line += ",\"msg\":";
    line += boost::json::serialize(
        boost::json::string(std::string_view(msg.payload.data(), msg.payload.size())));
    switch (msg.level) {
      case spdlog::level::trace:
        line += ",\"v\":5";
        break;
      case spdlog::level::debug:
        line += ",\"v\":4";
        break;
      case spdlog::level::info:
      case spdlog::level::warn:
        line += ",\"v\":0";
        break;
      default:
        break;  // errors: klog's ErrorS writes no verbosity
    }
    line += "}\n";
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<KlogJsonFormatter>();
  }
};

bool jsonLog = false;

}  // namespace

bool jsonLogging() { return jsonLog; }

std::string levelForVerbosity(int verbosity) {
  if (verbosity >= 5) {
    return "trace";
  }
  if (verbosity == 4) {
    return "debug";
  }
  return "info";
}

std::string checkVmodule(const std::string& vmodule) {
  std::stringstream items(vmodule);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) {
      continue;
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return "\"" + item + "\": expected PATTERN=N";
    }
    const std::string level = item.substr(eq + 1);
    if (level.empty() || level.find_first_not_of("0123456789") != std::string::npos ||
        level.size() > 9) {
      return "\"" + item + "\": the level must be a non-negative integer";
    }
  }
  return {};
}

std::unique_ptr<spdlog::formatter> makeKlogJsonFormatter() {
  return std::make_unique<KlogJsonFormatter>();
}

bool setUpLogging(const LoggingOptions& options, std::string& error) {
  std::string level = options.level;
  if (options.verbosity) {
    if (*options.verbosity < 0) {
      error = "-v " + std::to_string(*options.verbosity) + ": must be 0 or more";
      return false;
    }
    level = levelForVerbosity(*options.verbosity);
  }
  if (const std::string why = checkVmodule(options.vmodule); !why.empty()) {
    error = "--vmodule " + why;
    return false;
  }
  if (options.format != "text" && options.format != "json") {
    error = "--logging-format \"" + options.format + "\": the formats are text and json";
    return false;
  }
  // Logs go to stderr so that JSON on stdout stays clean.
  spdlog::set_default_logger(spdlog::stderr_color_mt("schedhost"));
  spdlog::set_level(spdlog::level::from_str(level));
  jsonLog = options.format == "json";
  if (jsonLog) {
    spdlog::set_formatter(makeKlogJsonFormatter());
  } else {
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  }
  if (!options.vmodule.empty()) {
    spdlog::warn(
        "--vmodule {}: schedhost's log has no per-file verbosity; the patterns are checked and "
        "otherwise have no effect (-v sets the level)",
        options.vmodule);
  }
  return true;
}

}  // namespace sh::cli
