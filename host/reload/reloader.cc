#include "host/reload/reloader.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

namespace sh::reload {
namespace {

constexpr std::size_t kResultsKept = 64;

// Host settings a running scheduler cannot change: they take effect at the next start.
std::vector<std::string> restartOnlyChanges(const config::HostConfig& was,
                                            const config::HostConfig& now) {
  std::vector<std::string> out;
  if (was.parallelism != now.parallelism) {
    out.emplace_back("parallelism");
  }
  if (was.podInitialBackoffSeconds != now.podInitialBackoffSeconds) {
    out.emplace_back("podInitialBackoffSeconds");
  }
  if (was.podMaxBackoffSeconds != now.podMaxBackoffSeconds) {
    out.emplace_back("podMaxBackoffSeconds");
  }
  if (was.percentageOfNodesToScore != now.percentageOfNodesToScore) {
    out.emplace_back("percentageOfNodesToScore");
  }
  if (was.admin.address != now.admin.address || was.admin.socket != now.admin.socket) {
    out.emplace_back("admin");
  }
  if (was.reload.watch != now.reload.watch ||
      was.reload.debounceMilliseconds != now.reload.debounceMilliseconds ||
      was.reload.drainWarningSeconds != now.reload.drainWarningSeconds) {
    out.emplace_back("reload");
  }
  if (was.binding.maxConcurrent != now.binding.maxConcurrent) {
    out.emplace_back("binding");
  }
  const auto& wc = was.clientConnection;
  const auto& nc = now.clientConnection;
  if (wc.kubeconfig != nc.kubeconfig || wc.qps != nc.qps || wc.burst != nc.burst) {
    out.emplace_back("clientConnection");
  }
  const auto& wl = was.leaderElection;
  const auto& nl = now.leaderElection;
  if (wl.leaderElect != nl.leaderElect || wl.leaseDuration != nl.leaseDuration ||
      wl.renewDeadline != nl.renewDeadline || wl.retryPeriod != nl.retryPeriod ||
      wl.resourceLock != nl.resourceLock || wl.resourceName != nl.resourceName ||
      wl.resourceNamespace != nl.resourceNamespace) {
    out.emplace_back("leaderElection");
  }
  if (was.extenders != now.extenders) {
    out.emplace_back("extenders");
  }
  return out;
}

}  // namespace

std::string lostPlugins(const profile::Generation& running, const profile::Generation& next) {
  std::string out;
  for (const config::ResolvedProfile& now : running.set.resolved) {
    const auto same = std::find_if(
        next.set.resolved.begin(), next.set.resolved.end(),
        [&](const config::ResolvedProfile& p) { return p.schedulerName == now.schedulerName; });
    if (same == next.set.resolved.end()) {
      continue;  // the profile itself is gone: the configuration says so
    }
    for (const std::string& name : same->notInstalled) {
      if (now.plugin(name) == nullptr) {
        continue;
      }
      std::string from;
      if (running.set.registry != nullptr) {
        if (std::optional<plugin::PluginCandidate> c = running.set.registry->candidate(name)) {
          from = " (loaded from [" + c->path + "])";
        }
      }
      out += "error: profile \"" + now.schedulerName + "\": plugin \"" + name +
             "\" is in use but no installed file provides it any more" + from +
             "; the reload would run the profile without it. Restore the plugin's file, or "
             "disable the plugin in the profile to drop it on purpose\n";
    }
  }
  return out;
}

int64_t steadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

WatchTargets watchTargets(const profile::Generation& generation,
                          const profile::LoadRequest& request) {
  WatchTargets out;
  if (!request.hostConfigFile.empty()) {
    out.files.emplace_back(request.hostConfigFile);
  }
  for (const std::string& f : request.profileFiles) {
    out.files.emplace_back(f);
  }
  const config::HostConfig& host = generation.set.host;
  for (const config::ProfileConfig& p : host.profiles) {
    for (const config::LibraryRef& lib : p.libraries) {
      out.files.emplace_back(lib.path);
    }
  }
  out.directories = host.profileDirs;
  if (!host.pluginDirs.empty()) {
    out.directories.insert(out.directories.end(), host.pluginDirs.begin(), host.pluginDirs.end());
  } else {
    for (const std::string& d : request.defaultPluginDirs) {
      out.directories.emplace_back(d);
    }
  }
  return out;
}

Reloader::Reloader(Options options, profile::GenerationPtr initial)
    : options_(std::move(options)), current_(std::move(initial)) {}

Reloader::~Reloader() { stop(); }

void Reloader::start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_ || stopping_) {
    return;
  }
  started_ = true;
  worker_ = std::thread([this] { loop(); });
}

void Reloader::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  requestCv_.notify_all();
  doneCv_.notify_all();
  if (worker_.joinable()) {
    worker_.join();
  }
}

uint64_t Reloader::request(std::string trigger) {
  uint64_t ticket = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ticket = ++requested_;
    if (pendingTrigger_.empty()) {
      pendingTrigger_ = std::move(trigger);
      pendingSince_ = steadyNanos();
    } else if (pendingTrigger_.find(trigger) == std::string::npos) {
      pendingTrigger_ += ", " + trigger;
    }
  }
  requestCv_.notify_one();
  return ticket;
}

std::optional<ReloadResult> Reloader::wait(uint64_t ticket, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool done =
      doneCv_.wait_for(lock, timeout, [&] { return stopping_ || handled_ >= ticket; });
  if (!done || handled_ < ticket) {
    return std::nullopt;
  }
  for (const auto& [covered, result] : results_) {
    if (covered >= ticket) {
      return result;
    }
  }
  return results_.empty() ? std::nullopt : std::optional<ReloadResult>(results_.back().second);
}

std::optional<ReloadResult> Reloader::reloadAndWait(std::string trigger,
                                                    std::chrono::milliseconds timeout) {
  return wait(request(std::move(trigger)), timeout);
}

profile::GenerationPtr Reloader::current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

std::optional<ReloadResult> Reloader::last() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (results_.empty()) {
    return std::nullopt;
  }
  return results_.back().second;
}

uint64_t Reloader::appliedCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return applied_;
}

uint64_t Reloader::rejectedCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rejected_;
}

uint64_t Reloader::pluginLoadFailures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return loadFailures_;
}

void Reloader::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    requestCv_.wait(lock, [&] { return stopping_ || requested_ > handled_; });
    if (stopping_) {
      return;
    }
    const uint64_t covers = requested_;
    const std::string trigger = std::exchange(pendingTrigger_, std::string());
    const int64_t since = pendingSince_;
    lock.unlock();
    ReloadResult result = reloadOnce(trigger, since);
    lock.lock();
    handled_ = covers;
    (result.applied ? applied_ : rejected_) += 1;
    loadFailures_ += result.pluginLoadFailures;
    results_.emplace_back(covers, result);
    while (results_.size() > kResultsKept) {
      results_.pop_front();
    }
    doneCv_.notify_all();
  }
}

ReloadResult Reloader::reloadOnce(const std::string& trigger, int64_t triggeredNanos) {
  ReloadResult result;
  result.trigger = trigger;
  result.triggeredNanos = triggeredNanos;
  profile::GenerationPtr running = current();
  const uint64_t next = (running == nullptr ? 0 : running->number) + 1;
  config::Diagnostics diags;
  profile::GenerationPtr built = profile::buildGeneration(options_.request, next, options_.services,
                                                          diags, &result.pluginLoadFailures);
  std::string lost;
  if (built != nullptr && running != nullptr) {
    lost = lostPlugins(*running, *built);
  }
  if (built == nullptr || !lost.empty()) {
    result.generation = running == nullptr ? 0 : running->number;
    result.error = built == nullptr ? diags.str() : lost;
    if (result.error.empty()) {
      result.error = "the configuration was not valid";
    }
  } else {
    result.generation = next;
    result.applied = true;
    result.changed = profile::changedBetween(running.get(), *built);
    result.warnings = diags.str();
    if (running != nullptr) {
      for (const std::string& field : restartOnlyChanges(running->set.host, built->set.host)) {
        result.warnings +=
            "warning: " + field + " changed; it takes effect when the scheduler restarts\n";
      }
    }
    if (options_.install) {
      options_.install(built);
    }
    std::lock_guard<std::mutex> lock(mu_);
    current_ = built;
    running = std::move(built);
  }
  result.finishedNanos = steadyNanos();
  if (options_.report) {
    options_.report(result, running);
  }
  return result;
}

}  // namespace sh::reload
