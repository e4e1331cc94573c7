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

// One thread's current plugin call. Written only by its thread; read by the watchdog and by
// the fatal-signal handler on the same thread. `calls` grows by one as each call begins, after
// its fields are written: the watchdog takes a call whose count stays the same across a whole
// bound for one call still running. A look that races a call's start may pair one call's
// plugin with the other's point; it is never the look that reports, since a call running past
// the bound no longer changes its fields.
struct PluginCallSlot {
  std::atomic<const char*> plugin{nullptr};  // NUL-terminated, never freed; nullptr: no call
  std::atomic<const char*> point{nullptr};   // a call_point constant
  std::atomic<uint64_t> calls{0};
  PluginInstance* instance = nullptr;  // read only by the thread itself
};

namespace detail {
// The calling thread's slot, or nullptr before its first plugin call (registerThisThread).
// A plain pointer in the executable's TLS: the per-call path pays no guard and no call.
extern thread_local constinit PluginCallSlot* threadSlot;
PluginCallSlot* registerThisThread();
}  // namespace detail

// Marks the calling thread as running `plugin` (its stableName() is `name`) at `point` until
// destroyed. Nests: a plugin that calls a host service running other plugins (a preemption dry
// run) is restored after. Inline, because Filter and Score enter one per plugin and node.
class PluginCallScope {
 public:
  [[gnu::always_inline]] PluginCallScope(const PluginInstance& plugin, const char* name,
                                         const char* point) noexcept
      : slot_(detail::threadSlot != nullptr ? detail::threadSlot : detail::registerThisThread()),
        previousPlugin_(slot_->plugin.load(std::memory_order_relaxed)),
        previousPoint_(slot_->point.load(std::memory_order_relaxed)),
        previousInstance_(slot_->instance) {
    slot_->instance = const_cast<PluginInstance*>(&plugin);
    slot_->plugin.store(name, std::memory_order_relaxed);
    slot_->point.store(point, std::memory_order_relaxed);
    slot_->calls.store(slot_->calls.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  [[gnu::always_inline]] ~PluginCallScope() {
    slot_->instance = previousInstance_;
    slot_->plugin.store(previousPlugin_, std::memory_order_relaxed);
    slot_->point.store(previousPoint_, std::memory_order_relaxed);
  }
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
// The call_point the calling thread's plugin is in, or nullptr outside a plugin call.
const char* currentPluginPoint();

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
