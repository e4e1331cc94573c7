#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

#include <boost/json.hpp>

#include "host/bench/bench_cluster.h"
#include "host/bench/throughput.h"
#include "host/bench/workload.h"
#include "host/cli/commands.h"
#include "host/cli/json_file.h"
#include "host/cli/json_print.h"
#include "host/cli/load_profiles.h"
#include "host/cycle/scheduler.h"
#include "host/cycle/scheduler_services.h"
#include "host/profile/profile_set.h"

namespace sh::cli {
namespace {

double peakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
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

  cycle::SchedulerServices services;
  config::Diagnostics diags;
  profile::ProfileSet set = loadSchedulingProfiles(args.config, args.pluginDirs, &services, diags);
  if (diags.hasErrors()) {
    return 1;
  }

  bench::BenchCluster cluster(*workload);
  cycle::SchedulerOptions so;
  so.parallelism = args.parallelism >= 0 ? args.parallelism : set.host.parallelism;
  so.percentageOfNodesToScore = set.host.percentageOfNodesToScore;
  so.seed = args.seed;
  Frameworks frameworks(set.frameworks.begin(), set.frameworks.end());
  const auto wallStart = std::chrono::steady_clock::now();
  cycle::SchedulerStats stats;
  connectors::LatencySummary latency;
  bool timedOut = false;
  {
    cycle::Scheduler scheduler(std::move(frameworks), cluster, nullptr, so);
    services.attach(&cluster, &scheduler.waitingPods());
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::thread watchdog([&] {
      std::unique_lock<std::mutex> lock(mu);
      if (!cv.wait_for(lock, std::chrono::seconds(args.timeoutSeconds), [&] { return done; })) {
        timedOut = true;
        scheduler.stop();
      }
    });
    stats = scheduler.run(false);
    {
      std::lock_guard<std::mutex> lock(mu);
      done = true;
    }
    cv.notify_all();
    watchdog.join();
    latency = scheduler.latencies().summary();
    services.attach(nullptr, nullptr);
  }
  const auto binds = cluster.measuredBindTimes();
  bench::Throughput tp = bench::throughputOf(cluster.measureStart(), binds);
  double elapsed = binds.empty()
                       ? 0
                       : std::chrono::duration<double>(
                             *std::max_element(binds.begin(), binds.end()) - cluster.measureStart())
                             .count();
  double plain = elapsed > 0 ? static_cast<double>(binds.size()) / elapsed : 0;
  double rss = peakRssMiB();
  double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

  if (args.json) {
    boost::json::object o;
    o["workload"] = workload->name;
    o["nodes"] = workload->nodes.size();
    o["initPods"] = workload->initPods.size();
    o["measuredPods"] = workload->measuredPods.size();
    o["measuredBound"] = binds.size();
    o["parallelism"] = so.parallelism;
    o["throughputAverage"] = tp.average;
    o["throughputP50"] = tp.p50;
    o["throughputP90"] = tp.p90;
    o["throughputP99"] = tp.p99;
    o["samples"] = tp.samples.size();
    o["measuredPerElapsed"] = plain;
    o["elapsedSeconds"] = elapsed;
    o["attemptLatencyMs"] = {{"p50", latency.p50}, {"p99", latency.p99}, {"max", latency.max}};
    o["peakRssMiB"] = rss;
    o["attempts"] = stats.attempts;
    o["preemptions"] = stats.preemptions;
    o["preemptionVictims"] = stats.preemptionVictims;
    o["timedOut"] = timedOut;
    printPretty(std::cout, o);
    std::cout << "\n";
  } else {
    std::printf("workload: %s (%zu nodes, %zu init pods, %zu measured pods)\n",
                workload->name.c_str(), workload->nodes.size(), workload->initPods.size(),
                workload->measuredPods.size());
    std::printf("parallelism: %d, cores: %u, seed: %llu\n", so.parallelism,
                std::thread::hardware_concurrency(), static_cast<unsigned long long>(args.seed));
    std::printf(
        "throughput (scheduler_perf): average %.0f pods/s, p50 %.0f, p90 %.0f, p99 %.0f "
        "over %zu samples\n",
        tp.average, tp.p50, tp.p90, tp.p99, tp.samples.size());
    std::printf("measured pods / elapsed:    %.0f pods/s (%zu pods in %.3f s)\n", plain,
                binds.size(), elapsed);
    std::printf("attempt latency:            p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", latency.p50,
                latency.p99, latency.max);
    std::printf("peak RSS:                   %.1f MiB\n", rss);
    std::printf("scheduled %llu, failed attempts %llu, wall %.2f s%s\n",
                static_cast<unsigned long long>(stats.scheduled),
                static_cast<unsigned long long>(stats.unschedulable + stats.errors), total,
                timedOut ? " (TIMED OUT)" : "");
    if (stats.preemptions > 0) {
      std::printf("preemptions %llu, victims %llu, attempts %llu (%.0f attempts/s)\n",
                  static_cast<unsigned long long>(stats.preemptions),
                  static_cast<unsigned long long>(stats.preemptionVictims),
                  static_cast<unsigned long long>(stats.attempts),
                  total > 0 ? static_cast<double>(stats.attempts) / total : 0.0);
    }
  }
  return timedOut || binds.size() != workload->measuredPods.size() ? 1 : 0;
}

}  // namespace sh::cli
