#include "host/cli/run_admin.h"

#include <algorithm>
#include <chrono>

#include <boost/json.hpp>

#include "host/cycle/decision_log.h"
#include "host/evaluate/evaluate.h"
#include "host/explain/explanation.h"
#include "host/explain/html_page.h"
#include "host/explain/summary.h"
#include "host/explain/what_if.h"
#include "host/plugin/loader.h"

namespace sh::cli {

std::string reloadJson(const reload::ReloadResult& r) {
  cycle::ReloadDecision d;
  d.generation = r.generation;
  d.applied = r.applied;
  d.changed = r.changed;
  d.error = r.error;
  return cycle::reloadLine(d);
}

admin::ServerOptions adminServerOptions(const config::HostConfig& host,
                                        const std::string& addressFlag,
                                        const std::string& socketFlag, bool remoteFlag) {
  admin::ServerOptions options;
  options.address = addressFlag.empty() ? host.admin.address : addressFlag;
  options.socket = socketFlag.empty() ? host.admin.socket : socketFlag;
  options.remoteHealthAndMetrics = host.admin.remoteHealthAndMetrics || remoteFlag;
  return options;
}

admin::Probe RunAdmin::health(std::stop_token) { return {}; }

admin::Probe RunAdmin::readiness(std::stop_token) {
  if (stopping_.load()) {
    return {false, "shutting down"};
  }
  if (readiness_) {
    // The connector says when it is ready (an API server's informers have synced); a
    // standby replica is ready before it schedules.
    if (std::string why = readiness_(); !why.empty()) {
      return {false, why};
    }
  } else if (!scheduler_.synced()) {
    return {false, "the initial cluster state is not loaded yet"};
  }
  if (reloader_.current() == nullptr) {
    return {false, "no profile generation yet"};
  }
  return {};
}

std::vector<admin::CheckResult> RunAdmin::checks(admin::HealthPath path, std::stop_token stop) {
  std::vector<admin::CheckResult> out;
  if (path == admin::HealthPath::kLivez || (path == admin::HealthPath::kHealthz && !leaderCheck_)) {
    out.push_back({"ping", ""});
    return out;
  }
  if (leaderCheck_) {
    out.push_back({"leaderElection", leaderCheck_()});
  }
  if (path == admin::HealthPath::kReadyz) {
    out.push_back({"shutdown", stopping_.load() ? "process is shutting down" : ""});
    const admin::Probe ready = readiness(stop);
    out.push_back({"sched-handler-sync",
                   ready.ok || stopping_.load() ? std::string() : "waiting for handlers to sync"});
  }
  return out;
}

std::string RunAdmin::configJson(std::stop_token) {
  profile::GenerationPtr g = reloader_.current();
  return g == nullptr ? std::string("{}") : profile::configzJson(*g);
}

std::string RunAdmin::metricsText(std::stop_token) {
  metrics_.pluginLibrariesResident.only().set(static_cast<double>(plugin::residentLibraryCount()));
  metrics_.goroutines.with({metrics::kOperationBinding})
      .set(static_cast<double>(scheduler_.status().bindingsInFlight));
  std::vector<metrics::FamilySnapshot> families = metrics_.registry().gather();
  const queue::QueueMetrics q = scheduler_.queue().metrics();
  families.push_back(metrics::pendingPodsFamily(q.pendingPods.active, q.pendingPods.backoff,
                                                q.pendingPods.unschedulable, q.pendingPods.gated));
  std::vector<metrics::IncomingPods> incoming;
  for (const auto& [key, count] : q.incomingPods) {
    incoming.push_back({key.first, key.second, count});
  }
  families.push_back(metrics::incomingPodsFamily(incoming));
  std::vector<metrics::UnschedulableByPlugin> rejected;
  for (const auto& [key, pods] : q.unschedulablePods) {
    rejected.push_back({key.first, key.second, pods});
  }
  families.push_back(metrics::unschedulablePodsFamily(rejected));
  families.push_back(
      metrics::inflightEventsFamily({q.inflightEvents.begin(), q.inflightEvents.end()}));
  const cache::CacheSize cache = scheduler_.cache().size();
  families.push_back(metrics::cacheSizeFamily(cache.assumedPods, cache.nodes, cache.pods));
  std::sort(families.begin(), families.end(),
            [](const metrics::FamilySnapshot& a, const metrics::FamilySnapshot& b) {
              return a.desc.name < b.desc.name;
            });
  return metrics::renderText(families);
}

// The what-if list of a pending pod: its profile's PreFilter, Filter and PostFilter plugins
// (fresh instances, the same args) evaluated on copies of the cluster as it is now, each with
// one thing changed (explain/what_if.h). Nothing is written; the scheduler goes on meanwhile.
void RunAdmin::addWhatIfs(const std::string& key, explain::Explanation& e) {
  std::optional<cycle::Scheduler::ClusterCopy> cluster = scheduler_.clusterCopyFor(key);
  if (!cluster) {
    e.whatIfNote = "not computed: the pod is no longer in the scheduling queue";
    return;
  }
  profile::GenerationPtr g = reloader_.current();
  const config::ResolvedProfile* profile = nullptr;
  if (g != nullptr) {
    for (const config::ResolvedProfile& rp : g->set.resolved) {
      if (rp.schedulerName == e.profile) profile = &rp;
    }
  }
  if (profile == nullptr || g->set.registry == nullptr) {
    e.whatIfNote = "not computed: profile \"" + e.profile + "\" is not in the current generation";
    return;
  }
  evaluate::Scenario scenario;
  scenario.name = "what-if " + key;
  scenario.pod = cluster->pod;
  scenario.nodes = std::move(cluster->nodes);
  scenario.pods = std::move(cluster->pods);
  scenario.objects =
      cluster->objects != nullptr ? cluster->objects : std::make_shared<model::ClusterObjects>();
  scenario.kindObjects = std::move(cluster->kindObjects);
  // In the profile's Filter order (a scenario runs its plugins in the order listed), then the
  // PreFilter and PostFilter plugins that do not filter.
  auto addPlugin = [&](const std::string& name) {
    for (const evaluate::PluginSpec& added : scenario.plugins) {
      if (added.name == name) return;
    }
    for (const config::EnabledPlugin& p : profile->plugins) {
      if (p.name != name) continue;
      std::string args;
      if (p.args != nullptr) {
        boost::json::value v = p.args->toJson();
        if (!v.is_null()) args = boost::json::serialize(v);
      }
      scenario.plugins.push_back({p.name, std::move(args)});
    }
  };
  for (ExtensionPoint point :
       {ExtensionPoint::kFilter, ExtensionPoint::kPreFilter, ExtensionPoint::kPostFilter}) {
    for (const config::ResolvedPlugin& r : profile->at(point)) addPlugin(r.name);
  }
  evaluate::Options options;
  options.registry = g->set.registry.get();
  try {
    evaluate::Scenario all = scenario;
    all.percentageOfNodesToScore = 100;
    const evaluate::Result now = evaluate::run(all, options);
    for (const auto& [name, node] : now.nodes) {
      if (node.feasible) {
        e.whatIfNote = "none needed: the pod fits on " + name +
                       " now (the cluster changed since this attempt; it is retried on the "
                       "next event that may make it schedulable)";
        return;
      }
    }
    std::string failures;
    e.whatIfs = explain::whatIfs(scenario, now, options, {}, &failures);
    if (!failures.empty()) {
      e.whatIfNote = failures;
    } else if (e.whatIfs.empty()) {
      e.whatIfNote = "none found among the changes tried";
    }
  } catch (const std::exception& ex) {
    e.whatIfNote = std::string("not computed: ") + ex.what();
  }
}

admin::DebugAnswer RunAdmin::debugPod(std::string_view podNamespace, std::string_view name,
                                      std::string_view format, std::stop_token) {
  const std::string key = std::string(podNamespace) + "/" + std::string(name);
  std::optional<cycle::AttemptRecord> record = scheduler_.attempts().last(key);
  if (!record) {
    return {404, std::string(admin::kContentTypeText),
            "no failed scheduling attempt is kept for pod " + key +
                ": it is bound, deleted, not one this scheduler serves, or has not failed yet "
                "(docs/explaining-decisions.md)\n"};
  }
  explain::Explanation e = explain::fromAttempt(*record);
  addWhatIfs(key, e);
  if (format == "text") {
    return {200, std::string(admin::kContentTypeText), explain::summary(e)};
  }
  if (format == "html") {
    return {200, std::string(admin::kContentTypeHtml), explain::htmlPage(e)};
  }
  return {200, std::string(admin::kContentTypeJson), boost::json::serialize(explain::toJson(e))};
}

std::string RunAdmin::statusJson(std::stop_token) {
  namespace json = boost::json;
  const cycle::SchedulerStatus s = scheduler_.status();
  json::object out;
  out["generation"] = s.generation;
  out["ready"] = readiness({}).ok;
  json::array profiles;
  if (profile::GenerationPtr g = reloader_.current()) {
    for (const config::ResolvedProfile& rp : g->set.resolved) {
      json::object plugins;
      for (ExtensionPoint point : kAllExtensionPoints) {
        json::array list;
        for (const config::ResolvedPlugin& r : rp.at(point)) {
          if (point == ExtensionPoint::kScore) {
            list.push_back(json::object{{"name", r.name}, {"weight", r.weight}});
          } else {
            list.push_back(json::string(r.name));
          }
        }
        if (!list.empty()) {
          plugins[typeName(point)] = std::move(list);
        }
      }
      profiles.push_back(
          json::object{{"schedulerName", rp.schedulerName}, {"plugins", std::move(plugins)}});
    }
  }
  out["profiles"] = std::move(profiles);
  out["queue"] = json::object{{"active", s.queue.active},
                              {"backoff", s.queue.backoff},
                              {"unschedulable", s.queue.unschedulable},
                              {"gated", s.queue.gated}};
  out["bindingsInFlight"] = s.bindingsInFlight;
  out["preemptionsInFlight"] = s.preemptionsInFlight;
  json::array orphans;
  for (const auto& [pod, schedulerName] : s.podsWithoutProfile) {
    orphans.push_back(json::object{{"pod", pod}, {"schedulerName", schedulerName}});
  }
  out["podsWithoutProfile"] = std::move(orphans);
  json::array retired;
  for (const auto& [generation, age] : s.retiredInUse) {
    retired.push_back(json::object{{"generation", generation}, {"ageSeconds", age}});
  }
  out["retiredGenerationsInUse"] = std::move(retired);
  if (auto last = reloader_.last()) {
    out["lastReload"] = json::parse(reloadJson(*last));
  } else {
    out["lastReload"] = nullptr;
  }
  return json::serialize(out);
}

admin::ReloadOutcome RunAdmin::reload(std::stop_token stop) {
  const uint64_t ticket = reloader_.request("POST /reload");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (!stop.stop_requested() && std::chrono::steady_clock::now() < deadline) {
    if (auto result = reloader_.wait(ticket, std::chrono::milliseconds(100))) {
      return {result->applied, reloadJson(*result)};
    }
  }
  return {false, R"({"kind":"Reload","result":"Rejected","changed":[],"error":"the scheduler )"
                 R"(is stopping, or the reload did not finish within 5 minutes"})"};
}

}  // namespace sh::cli
