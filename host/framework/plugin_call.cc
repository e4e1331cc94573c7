#include "host/framework/plugin_call.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include <spdlog/spdlog.h>

#include "host/framework/plugin_instance.h"

namespace sh {
namespace {

// Every thread that ever called a plugin has a slot here until it exits.
std::mutex slotsMu;
std::vector<std::shared_ptr<PluginCallSlot>>& slots() {
  static auto* all = new std::vector<std::shared_ptr<PluginCallSlot>>();  // never destroyed
  return *all;
}

// Big enough for the handler, which only formats a line: glibc's SIGSTKSZ can be small.
constexpr std::size_t kAltStackSize = 64 * 1024;

// Owns a thread's slot registration and alternate signal stack; its destructor, at thread
// exit, gives both back.
class ThreadRegistration {
 public:
  ThreadRegistration() : slot_(std::make_shared<PluginCallSlot>()) {
    {
      std::lock_guard<std::mutex> lock(slotsMu);
      slots().push_back(slot_);
    }
    // A thread that has an alternate stack already (a sanitizer's) keeps it.
    stack_t current{};
    if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) != 0) {
      altStack_ = std::make_unique<char[]>(kAltStackSize);
      stack_t ours{};
      ours.ss_sp = altStack_.get();
      ours.ss_size = kAltStackSize;
      if (::sigaltstack(&ours, nullptr) != 0) {
        altStack_.reset();
      }
    }
    detail::threadSlot = slot_.get();
  }
  ~ThreadRegistration() {
    detail::threadSlot = nullptr;
    if (altStack_ != nullptr) {
      stack_t off{};
      off.ss_flags = SS_DISABLE;
      ::sigaltstack(&off, nullptr);
    }
    std::lock_guard<std::mutex> lock(slotsMu);
    auto& all = slots();
    all.erase(std::remove(all.begin(), all.end(), slot_), all.end());
  }
  ThreadRegistration(const ThreadRegistration&) = delete;
  ThreadRegistration& operator=(const ThreadRegistration&) = delete;

 private:
  std::shared_ptr<PluginCallSlot> slot_;
  std::unique_ptr<char[]> altStack_;
};

// -- The fatal-signal report --------------------------------------------------------------

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction previousActions[std::size(kFatalSignals)];
std::once_flag installOnce;

const char* signalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "signal";
  }
}

// Appends `text` to buf at *used, leaving room for the final newline.
void append(char* buf, std::size_t size, std::size_t* used, const char* text) {
  for (; *text != '\0' && *used + 1 < size; ++text) {
    buf[(*used)++] = *text;
  }
}

// Set by the first thread to report a fatal signal. Lock-free, so async-signal-safe.
std::atomic<bool> fatalReported{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// Async-signal-safe: no allocation, no lock, no stdio. The slot is this thread's own.
void onFatalSignal(int sig, siginfo_t* info, void*) {
  if (fatalReported.exchange(true)) {
    // Another thread (several Filter workers in one crashing plugin, say) is reporting and
    // about to end the process: the report is said once. Should it not end (a handler before
    // ours that returns), this thread goes on to the default action after a bounded wait.
    struct timespec wait {
      2, 0
    };
    while (::nanosleep(&wait, &wait) != 0 && errno == EINTR) {
    }
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    ::sigaction(sig, &fallback, nullptr);
    if (info == nullptr || info->si_code <= 0 || sig == SIGABRT) {
      ::raise(sig);
    }
    return;
  }
  char line[512];
  std::size_t used = 0;
  append(line, sizeof(line), &used, "schedhost: fatal signal ");
  append(line, sizeof(line), &used, signalName(sig));
  const PluginCallSlot* slot = detail::threadSlot;
  const char* plugin = slot != nullptr ? slot->plugin.load(std::memory_order_relaxed) : nullptr;
  if (plugin != nullptr) {
    const char* point = slot->point.load(std::memory_order_relaxed);
    append(line, sizeof(line), &used, " in plugin \"");
    append(line, sizeof(line), &used, plugin);
    append(line, sizeof(line), &used, "\" (");
    append(line, sizeof(line), &used, point != nullptr ? point : "?");
    append(line, sizeof(line), &used, ")");
  } else {
    append(line, sizeof(line), &used, " (no plugin call in progress on this thread)");
  }
  line[used++] = '\n';
  for (std::size_t done = 0; done < used;) {
    ssize_t n = ::write(STDERR_FILENO, line + done, used - done);
    if (n <= 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  // Back to what handled the signal before (the default: the process dies). A fault returns
  // to the faulting instruction and raises it again; a sent signal is raised again here.
  for (std::size_t i = 0; i < std::size(kFatalSignals); ++i) {
    if (kFatalSignals[i] == sig) {
      ::sigaction(sig, &previousActions[i], nullptr);
    }
  }
  if (info == nullptr || info->si_code <= 0 || sig == SIGABRT) {
    ::raise(sig);
  }
}

// -- Plugin names that outlive every plugin ---------------------------------------------

std::mutex namesMu;
std::set<std::string, std::less<>>& names() {
  static auto* set = new std::set<std::string, std::less<>>();  // never destroyed
  return *set;
}

}  // namespace

namespace detail {

constinit thread_local PluginCallSlot* threadSlot = nullptr;

PluginCallSlot* registerThisThread() {
  if (threadSlot == nullptr) {
    thread_local ThreadRegistration registration;
  }
  // A plugin called from a thread's exit, after its registration is gone: tracked nowhere.
  thread_local PluginCallSlot unregistered;
  return threadSlot != nullptr ? threadSlot : &unregistered;
}

}  // namespace detail

PluginInstance* currentPlugin() {
  const PluginCallSlot* slot = detail::threadSlot;
  return slot != nullptr ? slot->instance : nullptr;
}

const char* currentPluginPoint() {
  const PluginCallSlot* slot = detail::threadSlot;
  return slot != nullptr && slot->instance != nullptr ? slot->point.load(std::memory_order_relaxed)
                                                      : nullptr;
}

const char* stablePluginName(const std::string& name) {
  std::lock_guard<std::mutex> lock(namesMu);
  return names().insert(name).first->c_str();
}

void installFatalSignalReport() {
  std::call_once(installOnce, [] {
    for (std::size_t i = 0; i < std::size(kFatalSignals); ++i) {
      struct sigaction action {};
      action.sa_sigaction = &onFatalSignal;
      action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
      sigemptyset(&action.sa_mask);
      ::sigaction(kFatalSignals[i], &action, &previousActions[i]);
    }
    // The calling thread (main) gets its alternate stack now, not at its first plugin call.
    detail::registerThisThread();
  });
}

PluginWatchdog::PluginWatchdog(std::chrono::nanoseconds bound, metrics::CounterFamily* slowCalls)
    : bound_(bound), slowCalls_(slowCalls), thread_([this] { run(); }) {}

PluginWatchdog::~PluginWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PluginWatchdog::run() {
  using Clock = std::chrono::steady_clock;
  const auto interval =
      std::max<std::chrono::nanoseconds>(bound_ / 4, std::chrono::milliseconds(10));
  // What the last looks saw of each slot: the call (its count), when it was first seen
  // running, and whether it was reported.
  struct Seen {
    uint64_t calls = 0;
    Clock::time_point since;
    bool reported = false;
  };
  std::map<const PluginCallSlot*, Seen> seen;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval, [this] { return stop_; })) {
    std::vector<std::shared_ptr<PluginCallSlot>> current;
    {
      std::lock_guard<std::mutex> slotsLock(slotsMu);
      current = slots();
    }
    const Clock::time_point now = Clock::now();
    std::map<const PluginCallSlot*, Seen> next;
    for (const auto& slot : current) {
      const uint64_t calls = slot->calls.load(std::memory_order_acquire);
      const char* plugin = slot->plugin.load(std::memory_order_relaxed);
      const char* point = slot->point.load(std::memory_order_relaxed);
      if (plugin == nullptr) {
        continue;  // no call
      }
      Seen s{calls, now, false};
      if (auto it = seen.find(slot.get()); it != seen.end() && it->second.calls == calls) {
        s = it->second;  // the same call as last time
      }
      // The call began before it was first seen, so it has run at least now - since.
      if (!s.reported && now - s.since >= bound_) {
        s.reported = true;
        spdlog::warn(
            "plugin \"{}\" has been running {} for more than {}s ([plugins] callWarningSeconds); "
            "its thread is held until the call returns",
            plugin, point != nullptr ? point : "?", std::chrono::duration<double>(bound_).count());
        if (slowCalls_ != nullptr) {
          slowCalls_->with({plugin, point != nullptr ? point : ""}).inc();
        }
        reported_.fetch_add(1, std::memory_order_release);
      }
      next.emplace(slot.get(), s);
    }
    seen = std::move(next);
  }
}

}  // namespace sh
