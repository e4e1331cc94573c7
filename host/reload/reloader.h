// Reloader: turns reload requests into profile generations, one at a time
// (docs/operations.md).
//
//   SIGHUP ──┐
//   inotify ─┼─► request() ──► worker thread: build generation N+1 off to the side
//   POST /reload ┘                 (parse, resolve, load libraries, create plugins, check)
//                                  ├─ valid:   install(N+1), report Applied
//                                  └─ invalid, or it would lose a plugin N uses because
//                                     its file is gone (lostPlugins): keep N, report
//                                     Rejected with every diagnostic
//
// Requests are serialised: one reload runs at a time, and requests that arrive while it runs
// are folded into one more run afterwards (never concurrent, never lost). Each request gets a
// ticket; wait(ticket) returns the result of the run that covered it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "host/framework/host_services.h"
#include "host/profile/generation.h"

namespace sh::reload {

struct ReloadResult {
  uint64_t generation = 0;  // the new generation when applied, the running one when rejected
  bool applied = false;
  std::vector<std::string> changed;  // profile and profile/Plugin names (changedBetween)
  std::string error;                 // when rejected: the diagnostics as `profile check` prints
  std::string warnings;              // diagnostics that did not prevent the reload
  std::string trigger;               // what asked for it: "SIGHUP", "file change", "POST /reload"
  int64_t triggeredNanos = 0;        // steady clock: the first request this run covers
  int64_t finishedNanos = 0;         // steady clock: built and installed (or rejected)
  std::size_t pluginLoadFailures = 0;
};

// What `next` would lose of `running`: for every profile in both, each plugin the running
// profile uses that the next one leaves out only because no installed file provides it (a
// plugin file deleted, or gone from the plugin directories). One "error: ..." line each,
// naming the profile, the plugin and the file it was loaded from; "" when nothing is lost. A
// reload with any is rejected: a profile must never drop a plugin (a filter, say) with nothing
// said.
std::string lostPlugins(const profile::Generation& running, const profile::Generation& next);

class Reloader {
 public:
  struct Options {
    profile::LoadRequest request;  // what every generation is built from
    HostServices* services = nullptr;
    // Makes a valid generation current (the scheduler's installFrameworks). Called on the
    // reloader's thread, before report.
    std::function<void(const profile::GenerationPtr&)> install;
    // Every result, applied or rejected, with the generation current afterwards. Called on the
    // reloader's thread.
    std::function<void(const ReloadResult&, const profile::GenerationPtr& current)> report;
  };

  Reloader(Options options, profile::GenerationPtr initial);
  ~Reloader();
  Reloader(const Reloader&) = delete;
  Reloader& operator=(const Reloader&) = delete;

  // Starts the worker thread; requests made before are served once it runs.
  void start();
  // Finishes the reload under way, if any, and joins the worker; pending requests are dropped
  // and their waiters released. Idempotent.
  void stop();

  // Asks for a reload; returns its ticket at once. Thread-safe (not async-signal-safe).
  uint64_t request(std::string trigger);
  // The result of the run that covered `ticket`, waiting up to `timeout`; nullopt on timeout or
  // when the reloader stopped first.
  std::optional<ReloadResult> wait(uint64_t ticket, std::chrono::milliseconds timeout);
  // request() and wait().
  std::optional<ReloadResult> reloadAndWait(std::string trigger, std::chrono::milliseconds timeout);

  profile::GenerationPtr current() const;
  std::optional<ReloadResult> last() const;
  uint64_t appliedCount() const;
  uint64_t rejectedCount() const;
  // Plugin files that failed to load, over every reload (startup excluded).
  uint64_t pluginLoadFailures() const;

 private:
  void loop();
  ReloadResult reloadOnce(const std::string& trigger, int64_t triggeredNanos);

  Options options_;
  mutable std::mutex mu_;
  std::condition_variable requestCv_;
  std::condition_variable doneCv_;
  profile::GenerationPtr current_;
  uint64_t requested_ = 0;  // tickets handed out
  uint64_t handled_ = 0;    // every ticket <= this has its result
  std::string pendingTrigger_;
  int64_t pendingSince_ = 0;
  bool stopping_ = false;
  bool started_ = false;
  // The last results, each with the highest ticket it covered.
  std::deque<std::pair<uint64_t, ReloadResult>> results_;
  uint64_t applied_ = 0;
  uint64_t rejected_ = 0;
  uint64_t loadFailures_ = 0;
  std::thread worker_;
};

// Steady-clock nanoseconds, as ReloadResult's times and GenerationTiming use them.
int64_t steadyNanos();

// What a file watcher watches for a generation built from `request`: the host configuration
// and profile files, every [[libraries]] file (files); the profileDirs and the plugin
// directories in use (directories).
struct WatchTargets {
  std::vector<std::filesystem::path> files;
  std::vector<std::filesystem::path> directories;
};
WatchTargets watchTargets(const profile::Generation& generation,
                          const profile::LoadRequest& request);

}  // namespace sh::reload
