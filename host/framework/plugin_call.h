// Which plugin each thread is running, for the two things the host can do about a plugin it
// cannot survive: name it when it kills the process, and report it when it does not return.
//
// A plugin runs in the host's process: a crash in its code takes the process down, and a call
// that never returns holds its thread forever. The host does not isolate plugins (see
// docs/operations.md); it makes sure the operator learns which plugin did it:
//
//   PluginCallScope   set around every call into a plugin (create, destroy, every extension
//                     point): the thread's current plugin and point. Entering and leaving cost
//                     a few stores to thread-local memory, no clock read, no lock.
//   installFatalSignalReport()
//                     on SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT, writes one line on stderr
//                     naming the plugin and point the faulting thread was running, then lets
//                     the signal take its previous course (the default: the process dies):
//                       schedhost: fatal signal SIGSEGV in plugin "X" (Filter)
//                     The handler uses only write(2), sigaction(2) and raise(3), and runs on
//                     an alternate stack, so a plugin's stack overflow is reported too.
//   PluginWatchdog    a thread that reports a plugin call running longer than a bound
//                     ([plugins] callWarningSeconds): a warning log line and
//                     schedhost_plugin_slow_calls_total{plugin, extension_point}. It cannot
//                     stop the call; it reports each slow call once.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "host/metrics/metric.h"

namespace sh {

class PluginInstance;

// The extension points as the report names them: the call a plugin is in.
namespace call_point {
inline constexpr const char* kCreate = "create";
inline constexpr const char* kDestroy = "destroy";
inline constexpr const char* kEventsToRegister = "EventsToRegister";
inline constexpr const char* kQueueingHint = "QueueingHint";
inline constexpr const char* kPreEnqueue = "PreEnqueue";
inline constexpr const char* kQueueSort = "QueueSort";
inline constexpr const char* kPreFilter = "PreFilter";
inline constexpr const char* kPreFilterAddPod = "PreFilterAddPod";
inline constexpr const char* kPreFilterRemovePod = "PreFilterRemovePod";
inline constexpr const char* kFilter = "Filter";
inline constexpr const char* kPostFilter = "PostFilter";
inline constexpr const char* kPreScore = "PreScore";
inline constexpr const char* kScore = "Score";
inline constexpr const char* kNormalizeScore = "NormalizeScore";
inline constexpr const char* kReserve = "Reserve";
inline constexpr const char* kUnreserve = "Unreserve";
inline constexpr const char* kPermit = "Permit";
inline constexpr const char* kPreBind = "PreBind";
inline constexpr const char* kBind = "Bind";
inline constexpr const char* kPostBind = "PostBind";
}  // namespace call_point

// One thread's current plugin call. Written only by its thread; read by the watchdog (through
// the sequence, seqlock-style) and by the fatal-signal handler on the same thread.
struct PluginCallSlot {
  std::atomic<const char*> plugin{nullptr};  // NUL-terminated, never freed; nullptr: no call
  std::atomic<const char*> point{nullptr};   // a call_point constant
  std::atomic<uint64_t> sequence{0};         // odd while the fields are being written
  PluginInstance* instance = nullptr;        // read only by the thread itself
};

// Marks the calling thread as running `plugin` at `point` until destroyed. Nests: a plugin
// that calls a host service running other plugins (a preemption dry run) is restored after.
class PluginCallScope {
 public:
  PluginCallScope(const PluginInstance& plugin, const char* point) noexcept;
  ~PluginCallScope();
  PluginCallScope(const PluginCallScope&) = delete;
  PluginCallScope& operator=(const PluginCallScope&) = delete;

 private:
  PluginCallSlot* slot_;
  const char* previousPlugin_;
  const char* previousPoint_;
  PluginInstance* previousInstance_;
};

// The plugin the calling thread is running, or nullptr (host services count a plugin's
// misuse on it).
PluginInstance* currentPlugin();

// A copy of `name` that lives as long as the process (what a slot points at).
const char* stablePluginName(const std::string& name);

// Installs the fatal-signal report for the process; idempotent.
void installFatalSignalReport();

class PluginWatchdog {
 public:
  // Reports calls running longer than `bound` (> 0), counting them in `slowCalls`
  // ({plugin, extension_point}) when given. The watchdog looks every bound / 4 (at least
  // every 10 ms), so a call is reported between `bound` and about 1.25 * bound after it began.
  explicit PluginWatchdog(std::chrono::nanoseconds bound,
                          metrics::CounterFamily* slowCalls = nullptr);
  ~PluginWatchdog();
  PluginWatchdog(const PluginWatchdog&) = delete;
  PluginWatchdog& operator=(const PluginWatchdog&) = delete;

  // Slow calls reported so far.
  uint64_t reported() const { return reported_.load(std::memory_order_acquire); }

 private:
  void run();

  std::chrono::nanoseconds bound_;
  metrics::CounterFamily* slowCalls_;
  std::atomic<uint64_t> reported_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace sh
