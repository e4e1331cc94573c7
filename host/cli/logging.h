// The process's log: its level, from --log-level or kube-scheduler's -v, and its format, text
// or kube-scheduler's JSON lines (--logging-format=json).
#pragma once

#include <optional>
#include <string>

#include <spdlog/formatter.h>

namespace sh::cli {

struct LoggingOptions {
  std::string level = "info";    // --log-level: trace, debug, info, warn, error, off
  std::optional<int> verbosity;  // -v / --v: klog's verbosity, overrides `level` when given
  std::string vmodule;           // --vmodule: pattern=N,... (validated; see docs/operations.md)
  std::string format = "text";   // --logging-format: text or json
};

// klog's verbosity as a level: 0 to 3 log what kube-scheduler logs at them (info), 4 adds the
// per-pod detail (debug), 5 and above everything (trace).
std::string levelForVerbosity(int verbosity);

// Checks --vmodule's syntax as klog does: comma-separated PATTERN=N with N a non-negative
// integer. "" when valid, the reason otherwise.
std::string checkVmodule(const std::string& vmodule);

// A formatter writing one JSON object per line with klog's field names: "ts" (seconds since
// the epoch, with microseconds), "caller", "msg", and "v" (the verbosity of an info line: 0,
// or 4 for debug and 5 for trace; error lines carry none, as klog's).
std::unique_ptr<spdlog::formatter> makeKlogJsonFormatter();

// Whether the log is JSON lines (--logging-format=json): then every line on stderr is one.
bool jsonLogging();

// Sets up the default logger on stderr. false, with `error` naming the option, on a bad value.
bool setUpLogging(const LoggingOptions& options, std::string& error);

}  // namespace sh::cli
