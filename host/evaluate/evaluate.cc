#include "host/evaluate/evaluate.h"

#include <cctype>
#include <mutex>

#include "host/connectors/object_store.h"
#include "host/connectors/object_write.h"

#include <algorithm>
#include <stdexcept>

#include <boost/json.hpp>

#include "host/cache/snapshot.h"
#include "host/config/args_tree.h"
#include "host/config/diagnostics.h"
#include "host/cycle/select_host.h"
#include "host/framework/cycle_host.h"
#include "host/framework/fit_error.h"
#include "host/framework/framework.h"
#include "host/framework/host_services.h"
#include "host/model/pod_key.h"
#include "host/plugin/registry.h"

namespace sh::evaluate {
namespace {

// The errors as "KEY: MESSAGE; KEY: MESSAGE", without a location: a scenario's plugins come from
// JSON, and the callers name the scenario file in front ("FILE: plugins[0].name: ...").
std::string scenarioErrors(const config::Diagnostics& diags) {
  std::string out;
  for (const config::Diagnostic& d : diags.items()) {
    if (d.severity != config::Severity::kError) {
      continue;
    }
    if (!out.empty()) {
      out += "; ";
    }
    out += d.key.empty() ? d.message : d.key + ": " + d.message;
  }
  return out;
}

PluginStatus toPluginStatus(const Status& s) {
  PluginStatus out;
  out.code = std::string(codeName(s.code()));
  out.reasons = s.reasons();
  return out;
}

using model::podKey;

// Loads and creates the scenario's plugins: each at every point it implements, in the
// order given, weight 1; PrioritySort and DefaultBinder implied.
std::shared_ptr<Framework> buildFramework(const Scenario& scenario,
                                          plugin::PluginRegistry& registry,
                                          HostServices* services) {
  std::vector<PluginSpec> specs = scenario.plugins;
  config::Diagnostics diags;
  // Only the plugins the scenario uses are loaded (dlopened).
  auto load = [&](const std::string& name,
                  const std::string& path) -> std::shared_ptr<const plugin::LoadedPlugin> {
    try {
      return registry.load(name);
    } catch (const plugin::LoadError& e) {
      diags.error({}, path, e.what());
      return nullptr;
    }
  };
  auto implements = [&](const std::string& name, uint32_t bit) {
    auto candidate = registry.candidate(name);
    return candidate && (candidate->points & bit) != 0;
  };
  bool haveSort = false;
  bool haveBind = false;
  for (const PluginSpec& s : specs) {
    haveSort = haveSort || implements(s.name, SH_POINT_QUEUE_SORT);
    haveBind = haveBind || implements(s.name, SH_POINT_BIND);
  }
  if (!haveSort && registry.candidate("PrioritySort")) {
    specs.push_back(PluginSpec{"PrioritySort", ""});
  }
  if (!haveBind && registry.candidate("DefaultBinder")) {
    specs.push_back(PluginSpec{"DefaultBinder", ""});
  }

  Framework::Config config;
  config.profileName = "evaluate";
  // The scenario's plugins are under test (docs/scenario-format.md): a claim reaches them
  // even when VolumeBinding is not among them.
  config.refuseUnhonoured = false;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const PluginSpec& spec = specs[i];
    std::string path = "plugins[" + std::to_string(i) + "]";
    if (!registry.candidate(spec.name) && registry.find(spec.name) == nullptr) {
      diags.error({}, path + ".name", "plugin \"" + spec.name + "\" does not exist");
      continue;
    }
    auto lib = load(spec.name, path + ".name");
    if (lib == nullptr) {
      continue;
    }
    std::string err;
    auto defaults = config::ArgNode::fromJsonText(
        lib->descriptor->default_args_json != nullptr ? lib->descriptor->default_args_json : "{}",
        path + ".args", {}, &err);
    if (!defaults) {
      diags.error({}, path + ".args",
                  "plugin \"" + spec.name + "\" has invalid default args: " + err);
      continue;
    }
    config::ArgNode args = defaults->clone();
    if (!spec.argsJson.empty()) {
      auto user = config::ArgNode::fromJsonText(spec.argsJson, path + ".args", {}, &err);
      if (!user) {
        diags.error({}, path + ".args", err);
        continue;
      }
      args = config::mergeDefaults(*defaults, *user);
    }
    auto argsHolder = std::make_shared<config::ArgNode>(std::move(args));
    auto inst = PluginInstance::create(lib, *argsHolder, services, diags);
    if (inst == nullptr) {
      continue;
    }
    for (std::size_t p = 0; p < kExtensionPointCount; ++p) {
      if ((inst->points() & pointBit(static_cast<ExtensionPoint>(p))) != 0) {
        config.plugins[p].push_back(inst);
      }
    }
  }
  if (diags.hasErrors()) {
    throw std::runtime_error(scenarioErrors(diags));
  }
  config.scoreWeights.assign(
      config.plugins[static_cast<std::size_t>(ExtensionPoint::kScore)].size(), 1);
  return std::make_shared<Framework>(std::move(config));
}

// The host of an explained decision: no other pods are nominated, work runs in order, and
// a preemption is recorded (the victims are reported), never carried out.
class EvaluateCycleHost : public CycleHost {
 public:
  explicit EvaluateCycleHost(uint64_t seed) : rng_(seed) {}

  std::vector<std::shared_ptr<const model::Pod>> nominatedPodsFor(std::string_view,
                                                                  const sh_pod&) override {
    return {};
  }
  void parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn) override {
    for (std::size_t i = 0; i < n; ++i) {
      fn(i);
    }
  }
  uint64_t random() override { return cycle::splitmix64(rng_); }
  Status preempt(const sh_pod&, std::string_view,
                 const std::vector<const sh_pod*>& victims) override {
    for (const sh_pod* v : victims) {
      victims_.push_back(podKey(*v));
    }
    return Status();
  }
  const std::vector<std::string>& victims() const { return victims_; }

 private:
  uint64_t rng_;
  std::vector<std::string> victims_;
};

// The services of an explained decision: the scenario's objects in a store of their own, and
// writes recorded for the bindingPlan, never made.
class EvaluateServices : public NullHostServices {
 public:
  connectors::ObjectStore* objectStore() override { return &store_; }
  bool writesPlanned() const override { return true; }
  Status writeObject(const connectors::ObjectKind& kind, const connectors::ObjectWrite& write,
                     std::string_view plugin, std::string_view point) override {
    std::string at(point);
    if (!at.empty()) {
      at[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(at[0])));
    }
    std::lock_guard<std::mutex> lock(mu_);
    writes_[at][std::string(plugin)].push_back(write.describe(kind));
    return Status();
  }
  std::map<std::string, std::map<std::string, std::vector<std::string>>> takeWrites() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::move(writes_);
  }

 private:
  connectors::ObjectStore store_;
  std::mutex mu_;
  std::map<std::string, std::map<std::string, std::vector<std::string>>> writes_;
};

// Runs the binding side of the decision on `node`, recording: Reserve, Permit, then PreBind
// when every Permit plugin allowed. Unreserve undoes Reserve at the end, as nothing binds.
void planBinding(const Framework& fw, CycleState& cycle, const sh_pod& pod, const std::string& node,
                 Result& result) {
  Status reserve = fw.runReserve(cycle, pod, node);
  if (!reserve.ok()) {
    result.bindingFailure = std::make_pair(std::string("reserve"), toPluginStatus(reserve));
    fw.runUnreserve(cycle, pod, node);
    return;
  }
  std::vector<std::pair<std::string, int64_t>> waits;
  Status permit = fw.runPermit(cycle, pod, node, &waits);
  for (const auto& [plugin, timeoutMs] : waits) {
    Result::PermitPlan plan;
    plan.code = "Wait";
    plan.timeoutSeconds = (timeoutMs + 999) / 1000;
    result.permit[plugin] = std::move(plan);
  }
  if (!permit.ok() && permit.code() != SH_WAIT) {
    Result::PermitPlan plan;
    plan.code = std::string(codeName(permit.code()));
    plan.reasons = permit.reasons();
    result.permit[permit.plugin().empty() ? "Permit" : permit.plugin()] = std::move(plan);
  }
  if (permit.ok()) {
    Status preBind = fw.runPreBind(cycle, pod, node);
    if (!preBind.ok()) {
      result.bindingFailure = std::make_pair(std::string("preBind"), toPluginStatus(preBind));
    }
  }
  fw.runUnreserve(cycle, pod, node);
}

}  // namespace

Result run(const Scenario& scenario, const Options& options) {
  plugin::PluginRegistry scanned;
  if (options.registry == nullptr) {
    std::vector<plugin::ScanError> loadErrors;
    scanned.indexDirs(options.pluginDirs, loadErrors);
  }
  plugin::PluginRegistry& registry = options.registry != nullptr ? *options.registry : scanned;
  EvaluateServices services;
  std::shared_ptr<Framework> fw = buildFramework(scenario, registry, &services);
  // The scenario's objects reach the kinds the plugins declared, as a watch would deliver them.
  std::vector<connectors::ObjectEvent> ignored;
  for (const auto& object : scenario.kindObjects) {
    services.objectStore()->applyByKind(false, object, ignored);
  }

  Result result;
  const sh_pod& pod = scenario.pod->view();
  result.pod = podKey(pod);
  for (const auto& plugin : fw->plugins(ExtensionPoint::kFilter)) {
    result.filterPlugins.push_back(plugin->name());
  }
  for (const auto& plugin : fw->plugins(ExtensionPoint::kScore)) {
    result.scorePlugins.push_back(plugin->name());
  }

  auto snapshot = cache::buildSnapshot(scenario.nodes, scenario.pods);
  snapshot->objects = scenario.objects;
  const std::size_t numAll = snapshot->views.size();
  for (const sh_node_info* ni : snapshot->views) {
    result.nodeNames.emplace_back(ni->node->name.ptr, ni->node->name.len);
  }
  CycleState cycle;
  cycle.snapshot = snapshot.get();
  if (services.objectStore()->kindCount() > 0) {
    cycle.objects = services.objectStore()->snapshot();
  }
  EvaluateCycleHost host(options.seed);
  cycle.framework = fw.get();
  cycle.host = &host;

  FitError fitError;
  fitError.numAllNodes = numAll;
  Diagnosis& diagnosis = fitError.diagnosis;

  std::vector<PluginTrace> preTrace;
  PreFilterOutcome pre;
  Status preStatus = fw->runPreFilter(cycle, pod, pre, &preTrace);
  for (const PluginTrace& t : preTrace) {
    PluginStatus ps = toPluginStatus(t.status);
    ps.nodeNames = t.nodeNames;
    result.preFilter[t.plugin] = std::move(ps);
  }
  if (preStatus.code() == SH_ERROR) {
    throw std::runtime_error(preStatus.message());
  }

  std::vector<const sh_node_info*> feasible;
  if (numAll == 0) {
    result.message = kNoNodesAvailable;
    return result;
  }
  if (!preStatus.ok()) {
    diagnosis.nodeToStatus.setAbsent(preStatus);
    diagnosis.preFilterMsg = preStatus.message();
    diagnosis.addPluginStatus(preStatus);
    for (const sh_node_info* ni : snapshot->views) {
      result.nodes[std::string(ni->node->name.ptr, ni->node->name.len)].feasible = false;
    }
  } else {
    std::vector<const sh_node_info*> candidates;
    if (pre.restricted) {
      Status absent(SH_UNSCHEDULABLE_AND_UNRESOLVABLE);
      std::vector<std::string> names = pre.restrictingPlugins;
      std::sort(names.begin(), names.end());
      std::string list = "[";
      for (std::size_t i = 0; i < names.size(); ++i) {
        list += (i > 0 ? " " : "") + names[i];
      }
      absent.addReason("node(s) didn't satisfy plugin(s) " + list + "]");
      diagnosis.nodeToStatus.setAbsent(absent);
      for (const sh_node_info* ni : snapshot->views) {
        std::string name(ni->node->name.ptr, ni->node->name.len);
        if (std::binary_search(pre.nodeNames.begin(), pre.nodeNames.end(), name)) {
          candidates.push_back(ni);
        }
      }
    } else {
      candidates = snapshot->views;
    }
    // As a scheduling cycle counts it: over the nodes PreFilter left.
    std::size_t wanted =
        cycle::numFeasibleNodesToFind(scenario.percentageOfNodesToScore, -1, candidates.size());
    for (const sh_node_info* ni : candidates) {
      if (feasible.size() >= wanted) {
        break;
      }
      std::string name(ni->node->name.ptr, ni->node->name.len);
      std::vector<PluginTrace> trace;
      Status s = fw->runFilter(cycle, pod, *ni, &trace);
      NodeResult& nr = result.nodes[name];
      for (const PluginTrace& t : trace) {
        nr.filter[t.plugin] = toPluginStatus(t.status);
      }
      if (s.code() == SH_ERROR) {
        throw std::runtime_error(s.message());
      }
      nr.feasible = s.ok();
      if (s.ok()) {
        feasible.push_back(ni);
      } else {
        diagnosis.addPluginStatus(s);
        diagnosis.nodeToStatus.set(name, std::move(s));
      }
    }
  }

  if (feasible.empty()) {
    if (fw->hasPostFilterPlugins()) {
      std::optional<std::string> nominated;
      Status pf = fw->runPostFilter(cycle, pod, diagnosis.nodeToStatus, &nominated);
      diagnosis.postFilterMsg = pf.ok() ? std::string() : pf.message();
      if (nominated && !nominated->empty()) {
        result.nominatedNodeName = nominated;
      }
      result.victims = host.victims();
    }
    result.message = fitError.message();
    result.writes = services.takeWrites();
    return result;
  }

  // Without Score plugins a cycle does not run PreScore either (upstream prioritizeNodes).
  if (fw->hasScorePlugins()) {
    Status ps = fw->runPreScore(cycle, pod, feasible);
    if (!ps.ok()) {
      throw std::runtime_error(ps.message());
    }
  }
  std::vector<NodeScore> scores;
  ScoreTable table;
  Status ss = fw->runScore(cycle, pod, feasible, scores, &table,
                           [](std::size_t n, const std::function<void(std::size_t)>& fn) {
                             for (std::size_t i = 0; i < n; ++i) {
                               fn(i);
                             }
                           });
  if (!ss.ok()) {
    throw std::runtime_error(ss.message());
  }
  const auto& scorers = fw->plugins(ExtensionPoint::kScore);
  for (std::size_t n = 0; n < scores.size(); ++n) {
    const NodeScore& ns = scores[n];
    NodeResult& nr = result.nodes[std::string(ns.node->node->name.ptr, ns.node->node->name.len)];
    for (std::size_t i = 0; i < scorers.size(); ++i) {
      if (cycle.skipScoreMask.size() == scorers.size() && cycle.skipScoreMask[i] != 0) {
        continue;
      }
      nr.scores[scorers[i]->name()] = table.at(n, i);
    }
    nr.total = ns.total;
  }
  std::size_t chosen = cycle::selectHost(scores, options.seed);
  const sh_node* node = scores[chosen].node->node;
  result.selected = std::string(node->name.ptr, node->name.len);
  planBinding(*fw, cycle, pod, *result.selected, result);
  result.writes = services.takeWrites();
  return result;
}

namespace {

boost::json::array stringArray(const std::vector<std::string>& items) {
  boost::json::array out;
  for (const std::string& x : items) {
    out.emplace_back(x);
  }
  return out;
}

boost::json::object statusJson(const PluginStatus& st) {
  boost::json::object o;
  o["code"] = st.code;
  o["reasons"] = stringArray(st.reasons);
  return o;
}

}  // namespace

boost::json::value toJson(const Result& r) {
  boost::json::object out;
  out["pod"] = r.pod;
  boost::json::object pre;
  for (const auto& [name, st] : r.preFilter) {
    boost::json::object o = statusJson(st);
    o["nodeNames"] = stringArray(st.nodeNames);
    pre[name] = std::move(o);
  }
  out["preFilter"] = std::move(pre);
  boost::json::object nodes;
  for (const auto& [name, nr] : r.nodes) {
    boost::json::object n;
    boost::json::object filter;
    for (const auto& [plugin, st] : nr.filter) {
      filter[plugin] = statusJson(st);
    }
    n["filter"] = std::move(filter);
    n["feasible"] = nr.feasible;
    boost::json::object scores;
    for (const auto& [plugin, v] : nr.scores) {
      scores[plugin] = v;
    }
    n["scores"] = std::move(scores);
    n["total"] = nr.total;
    nodes[name] = std::move(n);
  }
  out["nodes"] = std::move(nodes);
  if (r.selected) {
    out["selected"] = *r.selected;
  } else {
    out["selected"] = nullptr;
  }
  boost::json::object post;
  if (r.nominatedNodeName) {
    post["nominatedNodeName"] = *r.nominatedNodeName;
  } else {
    post["nominatedNodeName"] = nullptr;
  }
  post["victims"] = stringArray(r.victims);
  out["postFilter"] = std::move(post);
  if (!r.message.empty()) {
    out["message"] = r.message;
  }
  // Optional, as the format says: only when the binding would do more than bind.
  if (!r.permit.empty() || !r.writes.empty() || r.bindingFailure) {
    boost::json::object plan;
    if (!r.permit.empty()) {
      boost::json::object permit;
      for (const auto& [plugin, p] : r.permit) {
        boost::json::object o;
        o["code"] = p.code;
        if (p.code == "Wait") {
          o["timeoutSeconds"] = p.timeoutSeconds;
        }
        if (!p.reasons.empty()) {
          o["reasons"] = stringArray(p.reasons);
        }
        permit[plugin] = std::move(o);
      }
      plan["permit"] = std::move(permit);
    }
    for (const auto& [point, byPlugin] : r.writes) {
      boost::json::object o;
      for (const auto& [plugin, lines] : byPlugin) {
        o[plugin] = stringArray(lines);
      }
      plan[point] = std::move(o);
    }
    if (r.bindingFailure) {
      boost::json::object f = statusJson(r.bindingFailure->second);
      f["point"] = r.bindingFailure->first;
      plan["failure"] = std::move(f);
    }
    out["bindingPlan"] = std::move(plan);
  }
  return out;
}

}  // namespace sh::evaluate
