// The scheduling cycle (upstream schedule_one.go: schedulingCycle).
#include <algorithm>

#include <spdlog/spdlog.h>

#include "host/cycle/pod_text.h"
#include "host/cycle/scheduler.h"
#include "host/cycle/select_host.h"
#include "host/model/pod_assign.h"

namespace sh::cycle {
namespace {

// Upstream schedule_one.go: clearNominatedNode.
const queue::NominatingInfo kClearNomination = queue::NominatingInfo::overrideWith("");

}  // namespace

void Scheduler::scheduleOne(queue::QueuedPodInfoPtr info) {
  const model::Pod& podObj = *info->pod;
  const sh_pod& pod = podObj.view();
  const std::string uid = str(pod.uid);
  auto fwIt = frameworks_.find(std::string_view(pod.scheduler_name.ptr, pod.scheduler_name.len));
  if (fwIt == frameworks_.end()) {
    queue_->done(uid);
    return;
  }
  std::shared_ptr<const Framework> fw = fwIt->second;
  if (pod.deleting != 0) {
    connector_.recordEvent({"Warning", "FailedScheduling", "Scheduling",
                            "skip schedule deleting pod: " + podKey(pod), podKey(pod)});
    queue_->done(uid);
    return;
  }
  if (cache_.isAssumedPod(uid)) {
    queue_->done(uid);
    return;
  }
  const int64_t start = nowNanos();
  {
    std::lock_guard<std::mutex> lock(statsMu_);
    ++stats_.attempts;
  }
  if (!firstCycleOnGeneration_) {
    firstCycleOnGeneration_ = true;
    std::lock_guard<std::mutex> lock(genMu_);
    if (auto it = timings_.find(fw->generation()); it != timings_.end()) {
      it->second.firstCycleNanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now().time_since_epoch())
                                       .count();
    }
  }

  haveNominatedPods_ = queue_->hasNominatedPods();
  auto cycle = std::make_unique<CycleState>();
  FitError fitError;
  bool isFitError = false;
  ScheduleResult result;
  Status st = cache_.updateSnapshot(snapshot_);
  snapshot_.objects = connector_.clusterObjects();
  cycle->snapshot = &snapshot_;
  cycle->objects = objectSnapshot();
  cycle->framework = fw.get();
  cycle->host = this;
  // Upstream samples plugin durations in 10 % of cycles (pluginMetricsSamplePercent); every
  // tenth cycle here, so that sampling never touches the tie-break generator.
  cycle->recordPluginMetrics = options_.metrics != nullptr && ++sampleCounter_ % 10 == 0;
  if (st.ok()) {
    st = schedulePod(*fw, *cycle, pod, result, fitError);
    isFitError = st.isRejected() && fitError.numAllNodes > 0;
    if (st.ok() && options_.metrics != nullptr) {
      options_.metrics->schedulingAlgorithmDuration.only().observe(
          static_cast<double>(nowNanos() - start) / 1e9);
    }
  }
  if (!st.ok()) {
    // Every failure clears the pod's nomination, except one PostFilter ran for: its result
    // decides (none: the nomination stays) (upstream schedulingAlgorithm).
    queue::NominatingInfo nominating = kClearNomination;
    if (isFitError && fw->hasPostFilterPlugins()) {
      if (options_.metrics != nullptr) {
        options_.metrics->preemptionAttempts.only().inc();
      }
      std::optional<std::string> nominated;
      Status pf = fw->runPostFilter(*cycle, pod, fitError.diagnosis.nodeToStatus, &nominated);
      fitError.diagnosis.postFilterMsg = pf.ok() ? std::string() : pf.message();
      nominating =
          nominated ? queue::NominatingInfo::overrideWith(*nominated) : queue::NominatingInfo{};
    }
    handleSchedulingFailure(*fw, std::move(info), st, isFitError ? &fitError : nullptr, nominating,
                            start);
    return;
  }

  // Assume: the pod occupies its node in the cache from now on.
  std::shared_ptr<const model::Pod> assumed = model::assignToNode(podObj, result.host);
  Status as = assumed == nullptr ? Status(SH_ERROR, "cannot copy pod " + podKey(pod))
                                 : cache_.assumePod(assumed);
  if (!as.ok()) {
    handleSchedulingFailure(*fw, std::move(info), as, nullptr, kClearNomination, start);
    return;
  }
  queue_->deleteNominatedPodIfExists(info->pod);
  const sh_pod& ap = assumed->view();

  auto reserveFailure = [&](Status s) {
    fw->runUnreserve(*cycle, ap, result.host);
    cache_.forgetPod(assumed);
    if (s.isRejected()) {
      FitError fe;
      fe.numAllNodes = 1;
      fe.diagnosis.addPluginStatus(s);
      fe.diagnosis.nodeToStatus.set(result.host, s);
      handleSchedulingFailure(*fw, std::move(info), s, &fe, kClearNomination, start, &result);
    } else {
      handleSchedulingFailure(*fw, std::move(info), s, nullptr, kClearNomination, start, &result);
    }
  };
  Status rs = fw->runReserve(*cycle, ap, result.host);
  if (!rs.ok()) {
    reserveFailure(std::move(rs));
    return;
  }
  std::vector<std::pair<std::string, int64_t>> waits;
  Status ps = fw->runPermit(*cycle, ap, result.host, &waits);
  std::shared_ptr<WaitingPod> waiting;
  if (ps.isWait()) {
    waiting = waitingPods_.add(uid, waits);
  } else if (!ps.ok()) {
    reserveFailure(std::move(ps));
    return;
  }
  // The end of a successful scheduling cycle: activate the pods plugins asked for, and empty
  // the list (upstream schedule_one.go: prepareForBindingCycle, PodsToActivate).
  if (std::vector<std::string> keys = cycle->takePodsToActivate(); !keys.empty()) {
    queue_->activateKeys(keys);
  }
  startBindingCycle(fw, std::move(cycle), std::move(info), assumed, result.host, start, waiting);
}

Status Scheduler::schedulePod(const Framework& fw, CycleState& cycle, const sh_pod& pod,
                              ScheduleResult& result, FitError& fitError) {
  const std::size_t numAll = snapshot_.views.size();
  if (numAll == 0) {
    // An error, not a FitError (upstream ErrNoNodesAvailable).
    return Status(SH_ERROR, kNoNodesAvailable);
  }
  Status status;
  bool nominatedNodeFits = false;
  std::vector<const sh_node_info*> feasible =
      findNodesThatFitPod(fw, cycle, pod, fitError.diagnosis, status, nominatedNodeFits);
  if (status.code() == SH_ERROR) {
    return status;
  }
  if (!nominatedNodeFits && !options_.extenders.empty()) {
    feasible = findNodesThatPassExtenders(pod, std::move(feasible), fitError.diagnosis, status);
    if (status.code() == SH_ERROR) {
      return status;
    }
  }
  result.feasible = feasible.size();
  result.evaluated = feasible.size() + fitError.diagnosis.nodeToStatus.size();
  if (feasible.empty()) {
    fitError.numAllNodes = numAll;
    Status s(SH_UNSCHEDULABLE);
    return s;
  }
  if (feasible.size() == 1) {
    result.host = str(feasible[0]->node->name);
    return Status();
  }
  std::vector<NodeScore> scores;
  if (!fw.hasScorePlugins() && options_.extenders.empty()) {
    // Without Score plugins or extenders every node scores 1 and PreScore does not run either
    // (upstream prioritizeNodes).
    scores.resize(feasible.size());
    for (std::size_t i = 0; i < feasible.size(); ++i) {
      scores[i].node = feasible[i];
      scores[i].total = 1;
    }
  } else if (fw.hasScorePlugins()) {
    // Without Score plugins every node scores 1 and PreScore does not run either (upstream
    // prioritizeNodes).
    Status ps = fw.runPreScore(cycle, pod, feasible);
    if (!ps.ok()) {
      return ps;
    }
    cycle.parallelPhase = true;
    Status ss = fw.runScore(cycle, pod, feasible, scores, &result.table,
                            [this](std::size_t n, const std::function<void(std::size_t)>& fn) {
                              parallelizer_.until(n, fn, scoreGoroutines_);
                            });
    cycle.parallelPhase = false;
    if (!ss.ok()) {
      return ss;
    }
    result.skipScore = cycle.skipScoreMask;
  } else {
    scores.resize(feasible.size());
    for (std::size_t i = 0; i < feasible.size(); ++i) {
      scores[i].node = feasible[i];
    }
  }
  if (!options_.extenders.empty()) {
    addExtenderScores(pod, scores);
  }
  std::size_t chosen = selectHost(scores, splitmix64(rngState_));
  result.host = str(scores[chosen].node->node->name);
  result.scores = std::move(scores);
  return Status();
}

std::vector<const sh_node_info*> Scheduler::findNodesThatFitPod(
    const Framework& fw, CycleState& cycle, const sh_pod& pod, Diagnosis& diagnosis, Status& status,
    bool& nominatedNodeFits) {
  NodeToStatus& nts = diagnosis.nodeToStatus;
  const std::vector<const sh_node_info*>& all = snapshot_.views;
  PreFilterOutcome pre;
  Status ps = fw.runPreFilter(cycle, pod, pre);
  if (ps.code() == SH_ERROR) {
    status = ps;
    return {};
  }
  // The plugins that restricted the node set are rejectors from here on: if the nodes they
  // named do not exist or all fail, the pod waits for an event one of them registered
  // (upstream findNodesThatFitPod: Diagnosis.UnschedulablePlugins starts as the PreFilter's
  // pluginsWithNodes).
  diagnosis.unschedulablePlugins.insert(pre.restrictingPlugins.begin(),
                                        pre.restrictingPlugins.end());
  if (!ps.ok()) {
    nts.setAbsent(ps);
    diagnosis.preFilterMsg = ps.message();
    diagnosis.addPluginStatus(ps);
    return {};
  }

  // The nominated node first: if the pod still fits there, it is the only candidate. A
  // rejection there is recorded like any other (upstream evaluateNominatedNode shares the
  // NodeToStatus); an Error is only logged, and the full search follows.
  if (pod.nominated_node_name.len > 0) {
    const std::string_view nominated(pod.nominated_node_name.ptr, pod.nominated_node_name.len);
    if (const sh_node_info* ni = snapshot_.find(nominated)) {
      Status s = runFilterWithNominatedPods(fw, cycle, pod, *ni);
      if (s.ok()) {
        // The extenders too (upstream evaluateNominatedNode); an Error is only logged.
        Status es;
        std::vector<const sh_node_info*> passed =
            findNodesThatPassExtenders(pod, {ni}, diagnosis, es);
        if (!passed.empty()) {
          nominatedNodeFits = true;
          return passed;
        }
        if (!es.ok()) {
          spdlog::warn("evaluating nominated node {} for pod {}: {}", nominated, podKey(pod),
                       es.message());
        }
      }
      if (s.ok()) {
        // passed the plugins, not the extenders: recorded by findNodesThatPassExtenders
      } else if (s.code() == SH_ERROR) {
        spdlog::warn("evaluating nominated node {} for pod {}: {}", nominated, podKey(pod),
                     s.message());
      } else {
        diagnosis.addPluginStatus(s);
        nts.set(std::string(nominated), std::move(s));
      }
    }
  }

  std::vector<const sh_node_info*> restricted;
  const std::vector<const sh_node_info*>* nodes = &all;
  if (pre.restricted) {
    for (const std::string& name : pre.nodeNames) {
      if (const sh_node_info* ni = snapshot_.find(name)) {
        restricted.push_back(ni);  // names of nodes that do not exist are dropped
      }
    }
    nodes = &restricted;
    std::vector<std::string> names = pre.restrictingPlugins;
    std::sort(names.begin(), names.end());
    std::string list;
    for (const std::string& n : names) {
      list += (list.empty() ? "" : " ") + n;
    }
    nts.setAbsent(Status(SH_UNSCHEDULABLE_AND_UNRESOLVABLE,
                         "node(s) didn't satisfy plugin(s) [" + list + "]"));
  }

  std::vector<const sh_node_info*> feasible;
  // From here on, whatever happens (an Error included), nextStartNodeIndex moves past the
  // nodes examined: upstream adds len(feasibleNodes) + NodeToStatus.Len(), modulo the number
  // of all nodes.
  auto advanceStart = [&] {
    nextStartNodeIndex_ = (nextStartNodeIndex_ + feasible.size() + nts.size()) % all.size();
  };

  // Upstream findNodesThatPassFilters works on the (restricted) list: the number of feasible
  // nodes to find comes from its length, and nodes are visited from nextStartNodeIndex
  // modulo that length.
  const std::size_t n = nodes->size();
  if (n == 0) {
    advanceStart();
    return feasible;
  }
  std::size_t numToFind =
      numFeasibleNodesToFind(options_.percentageOfNodesToScore, fw.percentageOfNodesToScore(), n);
  if (!hasExtenderFilters() && !fw.hasScorePlugins() && !hasExtenderPrioritizers()) {
    numToFind = 1;
  }
  feasible.reserve(std::min(numToFind, n));
  const std::size_t start = nextStartNodeIndex_ % n;
  if (!fw.hasFilterPlugins()) {
    for (std::size_t i = 0; i < n && feasible.size() < numToFind; ++i) {
      feasible.push_back((*nodes)[(start + i) % n]);
    }
    advanceStart();
    return feasible;
  }

  // Filter is timed once per cycle, across every node (upstream findNodesThatPassFilters).
  const bool timed = fw.metrics() != nullptr;
  const auto filterStart =
      timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  struct FilterTimer {
    const Framework& fw;
    const Status& status;
    bool timed;
    std::chrono::steady_clock::time_point start;
    ~FilterTimer() {
      if (timed) {
        fw.observeExtensionPoint(
            ExtensionPoint::kFilter, status,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    }
  } filterTimer{fw, status, timed, filterStart};

  // Deterministic early stop: nodes are examined in rounds, in parallel within a round,
  // and the results are read in node order, so the feasible set never depends on which
  // worker finished first.
  std::size_t processed = 0;
  std::vector<Status> round;
  std::vector<uint8_t> ok;
  bool done = false;
  while (processed < n && !done) {
    std::size_t want = numToFind - feasible.size();
    std::size_t len = std::min(n - processed, std::max<std::size_t>(want, 16));
    round.assign(len, Status());
    ok.assign(len, 0);
    cycle.parallelPhase = true;
    parallelizer_.until(
        len,
        [&](std::size_t i) {
          const sh_node_info* ni = (*nodes)[(start + processed + i) % n];
          Status s = runFilterWithNominatedPods(fw, cycle, pod, *ni);
          if (s.ok()) {
            ok[i] = 1;
          } else {
            round[i] = std::move(s);
          }
        },
        filterGoroutines_);
    cycle.parallelPhase = false;
    for (std::size_t i = 0; i < len; ++i) {
      const sh_node_info* ni = (*nodes)[(start + processed + i) % n];
      if (ok[i] != 0) {
        feasible.push_back(ni);
        if (feasible.size() >= numToFind) {
          processed += i + 1;
          done = true;
          break;
        }
        continue;
      }
      if (round[i].code() == SH_ERROR) {
        status = std::move(round[i]);
        advanceStart();
        return {};
      }
      diagnosis.addPluginStatus(round[i]);
      nts.set(str(ni->node->name), std::move(round[i]));
    }
    if (!done) {
      processed += len;
    }
  }
  advanceStart();
  return feasible;
}

Status Scheduler::runFilterWithNominatedPods(const Framework& fw, CycleState& cycle,
                                             const sh_pod& pod, const sh_node_info& node) {
  if (!haveNominatedPods_) {
    return fw.runFilter(cycle, pod, node);
  }
  const std::string_view name(node.node->name.ptr, node.node->name.len);
  auto it = snapshot_.byName.find(name);
  if (it == snapshot_.byName.end()) {
    return fw.runFilter(cycle, pod, node);
  }
  return fw.runFilterWithNominatedPods(cycle, pod, *snapshot_.nodeInfos[it->second],
                                       nominatedPodsFor(name, pod));
}

bool Scheduler::givesUp(const Status& status, const queue::QueuedPodInfo& info,
                        const std::string& uid) {
  if (!inputOver_.load()) {
    return false;
  }
  std::lock_guard<std::mutex> lock(podsMu_);
  const int failures = ++failuresAfterInput_[uid];
  return (!status.isRejected() && info.consecutiveErrorsCount + 1 >= kErrorsBeforeGivingUp) ||
         failures >= kFailuresAfterInputBeforeGivingUp;
}

void Scheduler::handleSchedulingFailure(const Framework& fw, queue::QueuedPodInfoPtr info,
                                        const Status& status, const FitError* fitError,
                                        const queue::NominatingInfo& nominating, int64_t startNanos,
                                        const ScheduleResult* scored) {
  const sh_pod& pod = info->pod->view();
  const std::string uid = str(pod.uid);
  const bool rejected = status.isRejected();
  const bool lastAttempt = givesUp(status, *info, uid);
  const std::string reason = rejected ? "Unschedulable" : "SchedulerError";
  recordAttempt(rejected ? metrics::kResultUnschedulable : metrics::kResultError, fw.profileName(),
                startNanos);
  std::string message = fitError != nullptr ? fitError->message() : status.message();
  {
    std::lock_guard<std::mutex> lock(statsMu_);
    if (rejected) {
      ++stats_.unschedulable;
    } else {
      ++stats_.errors;
    }
  }

  // Only a FitError names rejector plugins; any other failure (an error, or a PreBind or Bind
  // rejection) waits out the error backoff (upstream handleSchedulingFailure).
  info->unschedulablePlugins.clear();
  info->pendingPlugins.clear();
  if (fitError != nullptr) {
    info->unschedulablePlugins = fitError->diagnosis.unschedulablePlugins;
    info->pendingPlugins = fitError->diagnosis.pendingPlugins;
  }

  std::shared_ptr<const model::Pod> latest;
  {
    std::lock_guard<std::mutex> lock(podsMu_);
    auto it = pods_.find(uid);
    if (it != pods_.end()) {
      latest = it->second;
    }
  }
  const std::string key = podKey(pod);
  const int attempts = info->attempts;
  std::shared_ptr<const model::Pod> failedPod = info->pod;
  const bool override = nominating.mode == queue::NominatingInfo::Mode::kOverride;
  if (latest != nullptr && latest->view().node_name.len == 0 && override &&
      std::string_view(latest->view().nominated_node_name.ptr,
                       latest->view().nominated_node_name.len) != nominating.nominatedNodeName) {
    // The status patch below writes (or clears) the nomination; the pod as the scheduler
    // knows it carries that from now on, so the next attempt starts from it.
    if (auto nominated = model::withNominatedNode(*latest, nominating.nominatedNodeName)) {
      std::lock_guard<std::mutex> lock(podsMu_);
      auto it = pods_.find(uid);
      if (it != pods_.end() && it->second == latest) {
        it->second = nominated;
      }
      latest = std::move(nominated);
    }
  }
  bool served = false;
  if (latest != nullptr) {
    // The pod's profile may have gone in a reload while this attempt ran.
    std::lock_guard<std::mutex> lock(genMu_);
    served = servedBy(frameworks_, *latest);
  }
  const bool pending = latest != nullptr && latest->view().node_name.len == 0 && served;
  const bool requeue = pending && !lastAttempt;
  if (!requeue) {
    // The attempt is over (a requeue ends it below). Never after a requeue: the pod may be
    // popped again at once, and done() would then end that next attempt's in-flight period,
    // whose failure the queue could no longer match with the events it saw.
    queue_->done(uid);
  }
  if (pending && lastAttempt) {
    // The batch run gives up on it (see Scheduler::run): out of the queue, counted once.
    std::lock_guard<std::mutex> podsLock(podsMu_);
    if (failedPods_.insert(uid).second) {
      std::lock_guard<std::mutex> lock(statsMu_);
      ++stats_.failed;
    }
  } else if (requeue) {
    info->pod = latest;
    Status q = queue_->addUnschedulableIfNotPresent(std::move(info), queue_->schedulingCycle());
    if (!q.ok()) {
      spdlog::warn("requeue {}: {}", key, q.message());
    }
  }
  // The nominator follows the decision (upstream calls AddNominatedPod in every case; its
  // pod lister refuses a pod deleted or bound, and a pod no profile serves is not ours).
  if (requeue) {
    queue_->addNominatedPod(latest, nominating);
  } else {
    queue_->deleteNominatedPodIfExists(failedPod);
  }

  if (pending) {
    keepAttempt(fw, key, uid, attempts, rejected, message, fitError,
                override ? nominating.nominatedNodeName : str(latest->view().nominated_node_name),
                scored);
  } else {
    attempts_.forget(key);
  }
  if (message.size() > 1024) {
    message = message.substr(0, 1020) + " ...";
  }
  connector_.recordEvent({"Warning", "FailedScheduling", "Scheduling", message, key});
  connectors::SchedulingFailure failure;
  failure.pod = failedPod;
  failure.reason = reason;
  failure.message = message;
  if (override) {
    failure.nominatedNodeName = nominating.nominatedNodeName;  // "" clears it
  }
  connector_.recordFailure(failure);
  latencies_.record(static_cast<double>(nowNanos() - startNanos) / 1e6);
  if (log_ != nullptr) {
    cycle::FailureDecision d;
    d.pod = key;
    d.profile = fw.profileName();
    d.generation = fw.generation();
    d.attempts = attempts;
    d.reason = reason;
    d.message = message;
    d.final = pending && lastAttempt;
    log_->failedScheduling(d);
  }
}

void Scheduler::keepAttempt(const Framework& fw, const std::string& key, const std::string& uid,
                            int attempts, bool rejected, const std::string& message,
                            const FitError* fitError, std::string nominatedNode,
                            const ScheduleResult* scored) {
  AttemptRecord r;
  r.pod = key;
  r.uid = uid;
  r.profile = fw.profileName();
  r.generation = fw.generation();
  r.unixNanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  r.attempts = attempts;
  r.result = std::string(rejected ? metrics::kResultUnschedulable : metrics::kResultError);
  r.message = message;
  r.nominatedNode = std::move(nominatedNode);
  for (const auto& plugin : fw.plugins(ExtensionPoint::kFilter)) {
    r.filterPlugins.push_back(plugin->name());
  }
  for (const auto& plugin : fw.plugins(ExtensionPoint::kScore)) {
    r.scorePlugins.push_back(plugin->name());
  }
  if (fitError != nullptr) {
    const Diagnosis& d = fitError->diagnosis;
    r.numAllNodes = fitError->numAllNodes;
    r.preFilterMessage = d.preFilterMsg;
    r.postFilterMessage = d.postFilterMsg;
    r.unschedulablePlugins.assign(d.unschedulablePlugins.begin(), d.unschedulablePlugins.end());
    r.pendingPlugins.assign(d.pendingPlugins.begin(), d.pendingPlugins.end());
    std::vector<NodeVerdict> verdicts;
    verdicts.reserve(d.nodeToStatus.size());
    for (const auto& [node, status] : d.nodeToStatus.entries()) {
      verdicts.push_back(
          {node, status.plugin(), std::string(codeName(status.code())), status.reasons()});
    }
    r.groups = groupNodes(std::move(verdicts));
    // The nodes without a verdict of their own share the "absent" one (PreFilter's
    // restriction, or not examined).
    if (const std::size_t rest = r.numAllNodes - std::min(r.numAllNodes, d.nodeToStatus.size());
        rest > 0) {
      const Status& absent = d.nodeToStatus.absent();
      r.groups.push_back(
          {absent.plugin(), std::string(codeName(absent.code())), absent.reasons(), rest, {}});
    }
  }
  if (scored != nullptr) {
    // The best feasible nodes, with each Score plugin's score when Score ran (one feasible
    // node is not scored, as upstream's).
    r.feasibleCount = scored->feasible;
    const std::vector<NodeScore>& scores = scored->scores;
    std::vector<std::size_t> order(scores.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
    }
    const std::size_t keep = std::min(order.size(), AttemptStore::kBestNodes);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                      [&](std::size_t a, std::size_t b) {
                        if (scores[a].total != scores[b].total) {
                          return scores[a].total > scores[b].total;
                        }
                        return str(scores[a].node->node->name) < str(scores[b].node->node->name);
                      });
    const auto& scorers = fw.plugins(ExtensionPoint::kScore);
    const ScoreTable& table = scored->table;
    for (std::size_t k = 0; k < keep; ++k) {
      const std::size_t n = order[k];
      AttemptRecord::ScoredNode node;
      node.name = str(scores[n].node->node->name);
      node.total = scores[n].total;
      if (table.pluginCount == scorers.size() && table.values.size() >= (n + 1) * scorers.size()) {
        for (std::size_t i = 0; i < scorers.size(); ++i) {
          if (i < scored->skipScore.size() && scored->skipScore[i] != 0) {
            continue;  // PreScore skipped it: not scored
          }
          node.scores.emplace_back(scorers[i]->name(), table.at(n, i));
        }
      }
      r.best.push_back(std::move(node));
    }
    if (r.best.empty() && !scored->host.empty()) {
      r.best.push_back({scored->host, {}, 0});
    }
  }
  attempts_.record(std::move(r));
}

void Scheduler::recordAttempt(std::string_view result, const std::string& profile,
                              int64_t startNanos) {
  if (options_.metrics == nullptr) {
    return;
  }
  const double seconds = static_cast<double>(nowNanos() - startNanos) / 1e9;
  options_.metrics->scheduleAttempts.with({result, profile}).inc();
  options_.metrics->schedulingAttemptDuration.with({result, profile}).observe(seconds);
}

}  // namespace sh::cycle
