#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <boost/json.hpp>

#include "host/bench/bench_cluster.h"
#include "host/bench/throughput.h"
#include "host/bench/workload.h"
#include "host/cli/commands.h"
#include "host/cli/json_file.h"
#include "host/cli/json_print.h"
#include "host/cli/load_profiles.h"
#include "host/common/limits.h"
#include "host/common/regular_file.h"
#include "host/config/feature_gates.h"
#include "host/cycle/scheduler.h"
#include "host/cycle/scheduler_services.h"
#include "host/metrics/scheduler_metrics.h"
#include "host/plugin/loader.h"
#include "host/profile/generation.h"
#include "host/profile/profile_set.h"
#include "host/reload/reloader.h"

namespace sh::cli {
namespace {

double peakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// One measured run of the workload.
struct BenchRun {
  bench::Throughput tp;
  std::size_t bound = 0;
  double elapsed = 0;
  double plain = 0;  // measured pods / elapsed
  cycle::LatencySummary latency;
  cycle::SchedulerStats stats;
  bool timedOut = false;
  int parallelism = 0;
  // Reloads during the run: how many, and from trigger to the first cycle on the new
  // generation (ms), sorted.
  std::size_t reloads = 0;
  std::vector<double> toFirstCycleMs;
};

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) {
    return 0;
  }
  std::size_t i = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

// Current resident memory (not the peak), MiB.
double currentRssMiB() {
  std::ifstream in("/proc/self/statm");
  long pages = 0;
  long resident = 0;
  in >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

profile::LoadRequest requestFor(const BenchArgs& args, metrics::SchedulerMetrics* metrics,
                                const std::string& config) {
  profile::LoadRequest request;
  request.hostConfigFile = config;
  request.defaultPluginDirs = args.pluginDirs;
  request.metrics = metrics;
  return request;
}

// The bench measures the host and its plugins; an extender's round trips would be measured
// against a server the bench does not run. True (with a message) for a configuration that has
// extenders.
bool refusesExtenders(const config::HostConfig& host) {
  if (host.extenders.empty()) {
    return false;
  }
  std::cerr << "schedhost bench: " << host.file << ": extenders[0] ("
            << host.extenders.front().urlPrefix
            << "): the bench does not call extenders; bench a configuration without them\n";
  return true;
}

// The scheduler as `schedhost run` sets it up from the host configuration, with the bench's
// own --parallelism and --seed.
cycle::SchedulerOptions schedulerOptions(const BenchArgs& args, const config::HostConfig& host,
                                         metrics::SchedulerMetrics* metrics) {
  cycle::SchedulerOptions so;
  so.parallelism = args.parallelism >= 0 ? args.parallelism : host.parallelism;
  so.percentageOfNodesToScore = host.percentageOfNodesToScore;
  so.maxConcurrentBindings = host.binding.maxConcurrent;
  so.seed = args.seed;
  so.metrics = metrics;
  so.asyncPreemption = config::processFeatureGates().enabled("SchedulerAsyncPreemption");
  return so;
}

// A Reloader that installs each new generation into `scheduler`.
reload::Reloader::Options reloaderOptions(const profile::LoadRequest& request,
                                          cycle::SchedulerServices& services,
                                          cycle::Scheduler& scheduler) {
  reload::Reloader::Options ro;
  ro.request = request;
  ro.services = &services;
  ro.install = [&scheduler](const profile::GenerationPtr& g) {
    scheduler.installFrameworks(g->set.frameworks, g->number);
  };
  return ro;
}

std::optional<BenchRun> runOnce(const BenchArgs& args, const bench::Workload& workload,
                                bool withMetrics, int reloadEveryMs) {
  metrics::SchedulerMetrics metrics;
  cycle::SchedulerServices services;
  const profile::LoadRequest request =
      requestFor(args, withMetrics ? &metrics : nullptr, args.config);
  config::Diagnostics diags;
  profile::GenerationPtr first = profile::buildGeneration(request, 1, &services, diags);
  std::cerr << diags.str();
  if (first == nullptr || refusesExtenders(first->set.host)) {
    return std::nullopt;
  }
  bench::BenchCluster cluster(workload);
  cycle::SchedulerOptions so =
      schedulerOptions(args, first->set.host, withMetrics ? &metrics : nullptr);
  so.objects = services.objectStore();
  BenchRun out;
  out.parallelism = so.parallelism;
  {
    cycle::Scheduler scheduler(first->set.frameworks, cluster, nullptr, so);
    services.attach(&cluster, &scheduler.waitingPods(), &scheduler);
    reload::Reloader::Options ro = reloaderOptions(request, services, scheduler);
    std::mutex resultsMu;
    std::vector<reload::ReloadResult> results;
    ro.report = [&](const reload::ReloadResult& r, const profile::GenerationPtr&) {
      std::lock_guard<std::mutex> lock(resultsMu);
      results.push_back(r);
    };
    reload::Reloader reloader(ro, first);
    first.reset();
    reloader.start();
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::thread watchdog([&] {
      std::unique_lock<std::mutex> lock(mu);
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::seconds(args.timeoutSeconds);
      while (!done) {
        const auto wake = reloadEveryMs > 0 ? std::chrono::steady_clock::now() +
                                                  std::chrono::milliseconds(reloadEveryMs)
                                            : deadline;
        if (cv.wait_until(lock, std::min(wake, deadline), [&] { return done; })) {
          break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
          out.timedOut = true;
          scheduler.stop();
          break;
        }
        reloader.request("bench");
      }
    });
    out.stats = scheduler.run(false);
    {
      std::lock_guard<std::mutex> lock(mu);
      done = true;
    }
    cv.notify_all();
    watchdog.join();
    reloader.stop();
    out.latency = scheduler.latencies().summary();
    for (const reload::ReloadResult& r : results) {
      if (!r.applied) {
        continue;
      }
      ++out.reloads;
      auto t = scheduler.timingOf(r.generation);
      if (t && t->firstCycleNanos > 0) {
        out.toFirstCycleMs.push_back(static_cast<double>(t->firstCycleNanos - r.triggeredNanos) /
                                     1e6);
      }
    }
    std::sort(out.toFirstCycleMs.begin(), out.toFirstCycleMs.end());
    services.attach(nullptr, nullptr, nullptr);
  }
  const auto binds = cluster.measuredBindTimes();
  out.tp = bench::throughputOf(cluster.measureStart(), binds);
  out.bound = binds.size();
  out.elapsed = binds.empty()
                    ? 0
                    : std::chrono::duration<double>(*std::max_element(binds.begin(), binds.end()) -
                                                    cluster.measureStart())
                          .count();
  out.plain = out.elapsed > 0 ? static_cast<double>(binds.size()) / out.elapsed : 0;
  return out;
}

void printRun(const char* label, const BenchRun& r) {
  std::printf("%s\n", label);
  std::printf(
      "throughput (scheduler_perf): average %.0f pods/s, p50 %.0f, p90 %.0f, p99 %.0f "
      "over %zu samples\n",
      r.tp.average, r.tp.p50, r.tp.p90, r.tp.p99, r.tp.samples.size());
  std::printf("measured pods / elapsed:    %.0f pods/s (%zu pods in %.3f s)\n", r.plain, r.bound,
              r.elapsed);
  std::printf("attempt latency:            p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", r.latency.p50,
              r.latency.p99, r.latency.max);
  if (r.reloads > 0) {
    std::printf(
        "reloads applied:            %zu; trigger to first cycle on the new generation: p50 "
        "%.2f ms, p99 %.2f ms, max %.2f ms over %zu\n",
        r.reloads, percentile(r.toFirstCycleMs, 0.5), percentile(r.toFirstCycleMs, 0.99),
        r.toFirstCycleMs.empty() ? 0.0 : r.toFirstCycleMs.back(), r.toFirstCycleMs.size());
  }
}

boost::json::object runJson(const BenchRun& r) {
  boost::json::object o;
  o["throughputAverage"] = r.tp.average;
  o["throughputP50"] = r.tp.p50;
  o["throughputP90"] = r.tp.p90;
  o["throughputP99"] = r.tp.p99;
  o["samples"] = r.tp.samples.size();
  o["measuredBound"] = r.bound;
  o["measuredPerElapsed"] = r.plain;
  o["elapsedSeconds"] = r.elapsed;
  o["attemptLatencyMs"] = {{"p50", r.latency.p50}, {"p99", r.latency.p99}, {"max", r.latency.max}};
  o["attempts"] = r.stats.attempts;
  o["preemptions"] = r.stats.preemptions;
  o["preemptionVictims"] = r.stats.preemptionVictims;
  o["reloads"] = r.reloads;
  o["reloadToFirstCycleMs"] = {{"p50", percentile(r.toFirstCycleMs, 0.5)},
                               {"p99", percentile(r.toFirstCycleMs, 0.99)}};
  o["timedOut"] = r.timedOut;
  return o;
}

// --reload-cycles: reloads back to back on a live scheduler running the workload in follow
// mode, the way an operator changes a profile: one configuration file, its content replaced by
// rename with --config's and --alt-config's in turn, each followed by a reload through the
// Reloader `run` uses. Resident memory after 1, 10, 100, ... reloads.
int runReloadCycles(const BenchArgs& args, const bench::Workload& workload) {
  if (args.config.empty() || args.altConfig.empty()) {
    std::cerr << "schedhost bench: --reload-cycles needs --config and --alt-config\n";
    return 2;
  }
  std::string texts[2];
  for (int i = 0; i < 2; ++i) {
    std::string error;
    std::optional<std::string> text =
        readRegularFile(i == 0 ? args.config : args.altConfig, limits::kMaxConfigFileBytes, error);
    if (!text) {
      std::cerr << "schedhost bench: " << error << "\n";
      return 2;
    }
    texts[i] = std::move(*text);
  }
  // Next to --config, so that relative directories resolve alike.
  const std::filesystem::path live =
      std::filesystem::path(args.config).parent_path() / ".schedhost-bench-reload.toml";
  const auto writeLive = [&live](const std::string& text) {
    const std::filesystem::path tmp = live.string() + ".tmp";
    std::ofstream(tmp) << text;
    std::filesystem::rename(tmp, live);
  };
  writeLive(texts[0]);
  metrics::SchedulerMetrics metrics;
  cycle::SchedulerServices services;
  const profile::LoadRequest request = requestFor(args, &metrics, live.string());
  config::Diagnostics diags;
  profile::GenerationPtr first = profile::buildGeneration(request, 1, &services, diags);
  std::cerr << diags.str();
  if (first == nullptr || refusesExtenders(first->set.host)) {
    std::filesystem::remove(live);
    return 1;
  }
  bench::BenchCluster cluster(workload);
  cycle::SchedulerOptions so = schedulerOptions(args, first->set.host, &metrics);
  so.objects = services.objectStore();
  int status = 0;
  {
    cycle::Scheduler scheduler(first->set.frameworks, cluster, nullptr, so);
    services.attach(&cluster, &scheduler.waitingPods(), &scheduler);
    reload::Reloader reloader(reloaderOptions(request, services, scheduler), first);
    first.reset();
    reloader.start();
    std::thread loop([&scheduler] { scheduler.run(true); });
    std::printf("reloads  rss MiB  resident libraries  ms/reload\n");
    std::printf("%7d  %7.1f  %18zu  %9s\n", 0, currentRssMiB(), plugin::residentLibraryCount(),
                "-");
    auto last = std::chrono::steady_clock::now();
    int lastCount = 0;
    for (int i = 1; i <= args.reloadCycles; ++i) {
      writeLive(texts[i % 2]);
      auto r = reloader.reloadAndWait("bench", std::chrono::seconds(60));
      if (!r || !r->applied) {
        std::cerr << "schedhost bench: reload " << i << " failed: " << (r ? r->error : "timeout")
                  << "\n";
        status = 1;
        break;
      }
      if (i == 1 || i == 10 || i == 100 || i == args.reloadCycles || i % 1000 == 0) {
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - last)
                .count() /
            std::max(1, i - lastCount);
        // Let the loop switch and the replaced generation go before reading memory.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::printf("%7d  %7.1f  %18zu  %9.2f\n", i, currentRssMiB(),
                    plugin::residentLibraryCount(), ms);
        std::fflush(stdout);
        last = std::chrono::steady_clock::now();
        lastCount = i;
      }
    }
    reloader.stop();
    scheduler.stop();
    loop.join();
    std::printf("generation %llu, peak RSS %.1f MiB\n",
                static_cast<unsigned long long>(scheduler.generation()), peakRssMiB());
    services.attach(nullptr, nullptr, nullptr);
  }
  std::filesystem::remove(live);
  return status;
}

// --write-cluster: the workload's objects as `schedhost run --cluster` reads them, a v1.List
// with one item per line (storage objects, nodes, then the init pods, then the measured pods),
// so that `run` and `bench` can be compared on the same cluster.
int writeClusterFile(const std::string& path, const bench::Workload& workload) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    std::cerr << "schedhost bench: --write-cluster " << path << ": cannot open for writing\n";
    return 2;
  }
  out << R"({"apiVersion":"v1","kind":"List","items":[)" << '\n';
  bool first = true;
  const auto item = [&](const std::string& json) {
    out << (first ? "" : ",\n") << json;
    first = false;
  };
  for (const auto& o : workload.objects) {
    item(boost::json::serialize(o->json()));
  }
  for (const auto& n : workload.nodes) {
    item(n->json());
  }
  for (const auto* pods : {&workload.initPods, &workload.measuredPods}) {
    for (const auto& p : *pods) {
      item(p->json());
    }
  }
  out << "\n]}\n";
  out.flush();
  if (!out) {
    std::cerr << "schedhost bench: --write-cluster " << path << ": write failed\n";
    return 2;
  }
  std::cerr << "schedhost bench: wrote " << workload.nodes.size() << " nodes and "
            << workload.initPods.size() + workload.measuredPods.size() << " pods to " << path
            << "\n";
  return 0;
}

}  // namespace

int runBench(const BenchArgs& args) {
  std::string error;
  auto doc = readJsonFile(args.workload, error);
  if (!doc) {
    std::cerr << "schedhost bench: " << error << "\n";
    return 2;
  }
  auto workload = bench::buildWorkload(*doc, args.scale, error);
  if (!workload) {
    std::cerr << "schedhost bench: " << args.workload << ": " << error << "\n";
    return 2;
  }
  if (!args.writeCluster.empty()) {
    return writeClusterFile(args.writeCluster, *workload);
  }
  if (args.reloadCycles > 0) {
    return runReloadCycles(args, *workload);
  }
  const auto wallStart = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, BenchRun>> runs;
  if (args.compare.empty()) {
    auto r = runOnce(args, *workload, args.metrics, args.reloadEveryMs);
    if (!r) {
      return 1;
    }
    runs.emplace_back("", std::move(*r));
  } else {
    const bool reloads = args.compare == "reload";
    const int every = args.reloadEveryMs > 0 ? args.reloadEveryMs : 100;
    auto base = runOnce(args, *workload, reloads ? args.metrics : false, 0);
    auto with = base ? runOnce(args, *workload, reloads ? args.metrics : true, reloads ? every : 0)
                     : std::nullopt;
    if (!base || !with) {
      return 1;
    }
    runs.emplace_back(reloads ? "without reloads" : "without metrics", std::move(*base));
    runs.emplace_back(
        reloads ? "with a reload every " + std::to_string(every) + " ms" : "with metrics",
        std::move(*with));
  }
  const double rss = peakRssMiB();
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  const BenchRun& last = runs.back().second;
  if (args.json) {
    boost::json::object o;
    o["workload"] = workload->name;
    o["nodes"] = workload->nodes.size();
    o["initPods"] = workload->initPods.size();
    o["measuredPods"] = workload->measuredPods.size();
    o["parallelism"] = last.parallelism;
    o["metrics"] = args.metrics;
    if (runs.size() == 1) {
      for (auto& [k, v] : runJson(last)) {
        o[k] = v;
      }
    } else {
      o["compare"] = args.compare;
      o["without"] = runJson(runs[0].second);
      o["with"] = runJson(runs[1].second);
      o["ratio"] = runs[0].second.plain > 0 ? runs[1].second.plain / runs[0].second.plain : 0;
    }
    o["peakRssMiB"] = rss;
    printPretty(std::cout, o);
    std::cout << "\n";
  } else {
    std::printf("workload: %s (%zu nodes, %zu init pods, %zu measured pods)\n",
                workload->name.c_str(), workload->nodes.size(), workload->initPods.size(),
                workload->measuredPods.size());
    std::printf("parallelism: %d, cores: %u, seed: %llu, metrics: %s\n", last.parallelism,
                std::thread::hardware_concurrency(), static_cast<unsigned long long>(args.seed),
                args.metrics ? "on" : "off");
    for (const auto& [label, run] : runs) {
      printRun(label.empty() ? "" : ("-- " + label).c_str(), run);
    }
    if (runs.size() == 2) {
      std::printf("ratio (with / without, measured pods / elapsed): %.3f\n",
                  runs[0].second.plain > 0 ? runs[1].second.plain / runs[0].second.plain : 0.0);
    }
    std::printf("peak RSS:                   %.1f MiB\n", rss);
    std::printf("scheduled %llu, failed attempts %llu, wall %.2f s%s\n",
                static_cast<unsigned long long>(last.stats.scheduled),
                static_cast<unsigned long long>(last.stats.unschedulable + last.stats.errors),
                total, last.timedOut ? " (TIMED OUT)" : "");
    if (last.stats.preemptions > 0) {
      std::printf("preemptions %llu, victims %llu, attempts %llu (%.0f attempts/s)\n",
                  static_cast<unsigned long long>(last.stats.preemptions),
                  static_cast<unsigned long long>(last.stats.preemptionVictims),
                  static_cast<unsigned long long>(last.stats.attempts),
                  total > 0 ? static_cast<double>(last.stats.attempts) / total : 0.0);
    }
  }
  for (const auto& [label, run] : runs) {
    if (run.timedOut || run.bound != workload->measuredPods.size()) {
      return 1;
    }
  }
  return 0;
}

}  // namespace sh::cli
