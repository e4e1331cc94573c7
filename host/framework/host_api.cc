// The sh_host_api table: every service of plugin.h §6, forwarding to the host's own
// objects. The opaque handles are the host's types (sh_status, sh_cycle, sh_snapshot,
// sh_prefilter_result, sh_host) or, for args, config::ArgNode.
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <spdlog/spdlog.h>

#include "host/cache/snapshot.h"
#include "host/common/quoted.h"
#include "host/common/status.h"
#include "host/config/args_tree.h"
#include "host/framework/cycle_host.h"
#include "host/framework/cycle_state.h"
#include "host/framework/node_to_status.h"
#include "host/framework/object_services.h"
#include "host/framework/plugin_call.h"
#include "host/framework/plugin_instance.h"
#include "host/framework/service_args.h"
#include "host/framework/simulation.h"
#include "host/model/interner.h"

namespace sh {
namespace {

using config::ArgNode;

// -- A plugin's invalid arguments ------------------------------------------------------------
// A service never trusts what a plugin passes: a NULL pointer where one is needed, a NULL
// string with a length, a length beyond kMaxArgumentBytes (no string a plugin has is that
// long; reading it would run off its memory) or a count beyond kMaxArgumentCount is refused:
// the call does nothing (or returns its "nothing" value), a failure is counted on the plugin
// the thread is running (PluginInstance::failures) and in hostServiceMisuses(), and the first
// misuse of each service by each plugin is logged as a warning (later ones at debug level: a
// plugin doing it per node would flood the log).
}  // namespace

namespace service {

std::atomic<uint64_t> misuses{0};
std::mutex warnedMu;
std::set<std::pair<const char*, const char*>> warned;  // (plugin's stable name, service)

void misuse(const char* service, const std::string& what) {
  misuses.fetch_add(1, std::memory_order_relaxed);
  PluginInstance* plugin = currentPlugin();
  if (plugin != nullptr) {
    plugin->countFailure();
  }
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(warnedMu);
    first = warned.emplace(plugin != nullptr ? plugin->stableName() : "", service).second;
  }
  const std::string who = plugin != nullptr ? "plugin " + quoted(plugin->name()) : "a plugin";
  spdlog::log(first ? spdlog::level::warn : spdlog::level::debug,
              "{} called {} with {}; the call is ignored", who, service, what);
}

// The string argument `what` of `service`, or nullopt (counted) when it cannot be one.
std::optional<std::string_view> text(const char* service, const char* what, const char* p,
                                     size_t n) {
  if (n == 0) {
    return std::string_view();
  }
  if (p == nullptr) {
    misuse(service, std::string(what) + " NULL and length " + std::to_string(n));
    return std::nullopt;
  }
  if (n > kMaxArgumentBytes) {
    misuse(service, std::string(what) + " of length " + std::to_string(n) + " (at most " +
                        std::to_string(kMaxArgumentBytes) + ")");
    return std::nullopt;
  }
  return std::string_view(p, n);
}

// A reason of the host's own (st may be NULL: then there is nowhere to put it).
void addReason(sh_status* st, std::string_view reason) {
  if (st != nullptr) {
    st->status.addReason(std::string(reason));
  }
}

sh_code reportStatus(const Status& s, sh_status* st) {
  if (st != nullptr) {
    for (const std::string& r : s.reasons()) {
      st->status.addReason(r);
    }
  }
  return s.code();
}

}  // namespace service

namespace {

using service::addReason;
using service::kMaxArgumentCount;
using service::misuse;
using service::present;
using service::reportStatus;
using service::text;

void apiLog(sh_host* host, int level, const char* msg, size_t len) {
  auto message = text("log", "message", msg, len);
  if (!message) {
    return;
  }
  const std::string& who = host != nullptr ? host->pluginName : std::string();
  auto lvl = spdlog::level::info;
  switch (level) {
    case SH_LOG_TRACE:
      lvl = spdlog::level::trace;
      break;
    case SH_LOG_DEBUG:
      lvl = spdlog::level::debug;
      break;
    case SH_LOG_INFO:
      lvl = spdlog::level::info;
      break;
    case SH_LOG_WARN:
      lvl = spdlog::level::warn;
      break;
    default:
      lvl = spdlog::level::err;
      break;
  }
  spdlog::log(lvl, "plugin {}: {}", who, *message);
}

void apiStatusAddReason(sh_status* st, const char* reason, size_t len) {
  if (!present("status_add_reason", "status", st)) {
    return;
  }
  if (auto r = text("status_add_reason", "reason", reason, len)) {
    st->status.addReason(std::string(*r));
  }
}

sh_id apiIntern(sh_host*, const char* s, size_t len) {
  auto str = text("intern", "string", s, len);
  return str ? model::interner().intern(*str) : SH_ID_NONE;
}
sh_str apiIdStr(sh_host*, sh_id id) { return model::interner().str(id); }

const ArgNode* node(const sh_args* a) { return ArgNode::fromShArgs(a); }

int apiArgsType(const sh_args* a) {
  const ArgNode* n = node(a);
  if (n == nullptr) {
    return SH_ARGS_NULL;
  }
  switch (n->kind()) {
    case ArgNode::Kind::kNull:
      return SH_ARGS_NULL;
    case ArgNode::Kind::kBool:
      return SH_ARGS_BOOL;
    case ArgNode::Kind::kInt:
      return SH_ARGS_INT;
    case ArgNode::Kind::kDouble:
      return SH_ARGS_DOUBLE;
    case ArgNode::Kind::kString:
      return SH_ARGS_STRING;
    case ArgNode::Kind::kArray:
      return SH_ARGS_ARRAY;
    case ArgNode::Kind::kObject:
      return SH_ARGS_OBJECT;
  }
  return SH_ARGS_NULL;
}
const sh_args* apiArgsGet(const sh_args* obj, const char* key) {
  const ArgNode* n = node(obj);
  if (n == nullptr || key == nullptr) {
    return nullptr;
  }
  const ArgNode* c = n->get(key);
  return c == nullptr ? nullptr : c->asShArgs();
}
size_t apiArgsSize(const sh_args* a) { return node(a) == nullptr ? 0 : node(a)->size(); }
const sh_args* apiArgsAt(const sh_args* arr, size_t i) {
  const ArgNode* n = node(arr);
  const ArgNode* c = n == nullptr ? nullptr : n->at(i);
  return c == nullptr ? nullptr : c->asShArgs();
}
sh_str apiArgsKeyAt(const sh_args* obj, size_t i) {
  const ArgNode* n = node(obj);
  if (n == nullptr) {
    return sh_str{nullptr, 0};
  }
  std::string_view k = n->keyAt(i);
  return sh_str{k.data(), k.size()};
}
int64_t apiArgsInt(const sh_args* a) { return node(a) == nullptr ? 0 : node(a)->asInt(); }
double apiArgsDouble(const sh_args* a) { return node(a) == nullptr ? 0 : node(a)->asDouble(); }
int apiArgsBool(const sh_args* a) { return node(a) != nullptr && node(a)->asBool() ? 1 : 0; }
sh_str apiArgsString(const sh_args* a) {
  if (node(a) == nullptr || !node(a)->isString()) {
    return sh_str{nullptr, 0};
  }
  const std::string& s = node(a)->asString();
  return sh_str{s.data(), s.size()};
}
void apiArgsError(sh_host* host, const sh_args* a, const char* msg, size_t len) {
  // The error stands even when its text is unusable: create is failing either way.
  auto given = text("args_error", "message", msg, len);
  std::string message = given ? std::string(*given) : std::string("(invalid message)");
  if (host == nullptr || host->argsErrors == nullptr) {
    spdlog::error("plugin args error outside create: {}", message);
    return;
  }
  const ArgNode* n = node(a);
  config::SourceLocation where = n != nullptr ? n->where() : config::SourceLocation{};
  std::string key = n != nullptr ? n->path() : std::string();
  host->argsErrors->error(where, key, std::move(message));
}

void apiCycleWrite(sh_cycle* c, sh_id key, void* data, const sh_state_ops* ops) {
  if (c == nullptr) {
    return;
  }
  if (!c->write(key, data, ops)) {
    spdlog::error("cycle state write refused during a parallel phase (key {})", key);
  }
}
void* apiCycleRead(sh_cycle* c, sh_id key) { return c == nullptr ? nullptr : c->read(key); }
const sh_snapshot* apiCycleSnapshot(sh_cycle* c) { return c == nullptr ? nullptr : c->snapshot; }

size_t apiSnapNodeCount(const sh_snapshot* s) { return s == nullptr ? 0 : s->views.size(); }
const sh_node_info* apiSnapNodeAt(const sh_snapshot* s, size_t i) {
  return s == nullptr || i >= s->views.size() ? nullptr : s->views[i];
}
const sh_node_info* apiSnapNodeByName(const sh_snapshot* s, const char* name, size_t len) {
  auto n = text("snapshot_node_by_name", "name", name, len);
  return s == nullptr || !n ? nullptr : s->find(*n);
}
size_t apiSnapWithAffinity(const sh_snapshot* s, const sh_node_info* const** out) {
  if (!present("snapshot_nodes_with_affinity_pods", "out", out)) {
    return 0;
  }
  if (s == nullptr) {
    *out = nullptr;
    return 0;
  }
  *out = s->withAffinity.data();
  return s->withAffinity.size();
}
size_t apiSnapWithAntiAffinity(const sh_snapshot* s, const sh_node_info* const** out) {
  if (!present("snapshot_nodes_with_required_anti_affinity_pods", "out", out)) {
    return 0;
  }
  if (s == nullptr) {
    *out = nullptr;
    return 0;
  }
  *out = s->withRequiredAntiAffinity.data();
  return s->withRequiredAntiAffinity.size();
}

void apiPrefilterAddNode(sh_prefilter_result* r, const char* name, size_t len) {
  if (!present("prefilter_result_add_node", "result", r)) {
    return;
  }
  if (auto n = text("prefilter_result_add_node", "name", name, len)) {
    r->restricted = true;
    r->nodes.emplace_back(*n);
  }
}

int apiNodeFilterCode(sh_cycle* c, const char* name, size_t len) {
  auto n = text("node_filter_code", "name", name, len);
  if (c == nullptr || c->nodeStatuses == nullptr || !n) {
    return SH_SUCCESS;
  }
  return c->nodeStatuses->get(std::string(*n)).code();
}
void apiPostfilterNominate(sh_cycle* c, const char* name, size_t len) {
  // An empty name is a nomination too: it clears the pod's (ModeOverride, "").
  auto n = text("postfilter_nominate", "name", name, len);
  if (c != nullptr && n) {
    c->nominatedNode = std::string(*n);
  }
}

int apiWaitingAllow(sh_host* h, const char* uid, size_t ulen, const char* pl, size_t plen) {
  auto u = text("waiting_pod_allow", "pod_uid", uid, ulen);
  auto p = text("waiting_pod_allow", "plugin", pl, plen);
  if (h == nullptr || h->services == nullptr || !u || !p) {
    return 0;
  }
  return h->services->allowWaitingPod(*u, *p) ? 1 : 0;
}
int apiWaitingReject(sh_host* h, const char* uid, size_t ulen, const char* pl, size_t plen,
                     const char* msg, size_t mlen) {
  auto u = text("waiting_pod_reject", "pod_uid", uid, ulen);
  auto p = text("waiting_pod_reject", "plugin", pl, plen);
  auto m = text("waiting_pod_reject", "msg", msg, mlen);
  if (h == nullptr || h->services == nullptr || !u || !p || !m) {
    return 0;
  }
  return h->services->rejectWaitingPod(*u, *p, *m) ? 1 : 0;
}

sh_code apiBindPod(sh_host* h, const sh_pod* pod, const char* node, size_t len, sh_status* st) {
  auto n = text("bind_pod", "node_name", node, len);
  if (!n) {
    addReason(st, "bind_pod: invalid node name");
    return SH_ERROR;
  }
  if (h == nullptr || h->services == nullptr || pod == nullptr) {
    addReason(st, "no cluster connector to bind with");
    return SH_ERROR;
  }
  Status s = h->services->bindPod(*pod, *n);
  if (st != nullptr) {
    for (const std::string& r : s.reasons()) {
      st->status.addReason(r);
    }
  }
  return s.code();
}

size_t copyOut(const std::string& text, char* buf, size_t cap) {
  if (buf != nullptr && cap > 0) {
    std::memcpy(buf, text.data(), std::min(cap, text.size()));
  }
  return text.size();
}
size_t apiPodJson(const sh_pod* pod, char* buf, size_t cap) {
  const model::Pod* p = model::Pod::fromView(pod);
  return p == nullptr ? 0 : copyOut(p->json(), buf, cap);
}
size_t apiNodeJson(const sh_node* node, char* buf, size_t cap) {
  const model::Node* n = model::Node::fromView(node);
  return n == nullptr ? 0 : copyOut(n->json(), buf, cap);
}

const sh_json* jsonHandle(const boost::json::value& v) {
  return reinterpret_cast<const sh_json*>(&v);
}
const sh_json* apiPodManifest(sh_host* /*host*/, const sh_pod* pod) {
  if (!present("pod_manifest", "pod", pod)) {
    return nullptr;
  }
  return jsonHandle(model::Pod::fromView(pod)->manifest());
}
const sh_json* apiNodeManifest(sh_host* /*host*/, const sh_node* node) {
  if (!present("node_manifest", "node", node)) {
    return nullptr;
  }
  return jsonHandle(model::Node::fromView(node)->manifest());
}

int apiSnapPvcInUse(const sh_snapshot* s, const char* ns, size_t nsLen, const char* name,
                    size_t nameLen) {
  auto n = text("snapshot_pvc_in_use", "ns", ns, nsLen);
  auto c = text("snapshot_pvc_in_use", "name", name, nameLen);
  if (s == nullptr || !n || !c || s->usedPvcs.empty()) {
    return 0;
  }
  std::string key;
  key.reserve(nsLen + 1 + nameLen);
  key.append(*n).append(1, '/').append(*c);
  return s->pvcInUse(key) ? 1 : 0;
}

int apiWritesPlanned(sh_host* host) {
  return host != nullptr && host->services != nullptr && host->services->writesPlanned() ? 1 : 0;
}

int apiCycleWait(sh_host* /*host*/, sh_cycle* c, uint32_t millis) {
  if (!present("cycle_wait", "cycle", c)) {
    return SH_WAIT_STOPPING;
  }
  const std::chrono::milliseconds wait(millis);
  if (c->cancel == nullptr) {
    std::this_thread::sleep_for(wait);  // no binding cycle: nothing cancels it
    return SH_WAIT_ELAPSED;
  }
  return c->cancel->waitFor(wait);
}

size_t apiNamespaceLabels(sh_cycle* c, const char* ns, size_t len, const sh_label** out) {
  if (!present("namespace_labels", "out", out)) {
    return 0;
  }
  *out = nullptr;
  auto name = text("namespace_labels", "ns", ns, len);
  if (c == nullptr || c->snapshot == nullptr || c->snapshot->objects == nullptr || !name) {
    return 0;
  }
  const std::vector<sh_label>* labels = c->snapshot->objects->namespaceLabels(*name);
  if (labels == nullptr) {
    return 0;
  }
  // A known namespace never answers NULL, even without labels: NULL means unknown.
  static const sh_label kNoLabels{};
  *out = labels->empty() ? &kNoLabels : labels->data();
  return labels->size();
}

size_t apiWorkloadSelectors(sh_cycle* c, const sh_pod* pod, const sh_label_selector* const** out) {
  thread_local std::vector<const sh_label_selector*> selectors;
  selectors.clear();
  if (!present("workload_selectors", "out", out)) {
    return 0;
  }
  *out = nullptr;
  if (c == nullptr || pod == nullptr || c->snapshot == nullptr || c->snapshot->objects == nullptr) {
    return 0;
  }
  c->snapshot->objects->workloadSelectors(*pod, selectors);
  *out = selectors.data();
  return selectors.size();
}

sh_status* apiStatusCreate() { return new (std::nothrow) sh_status(); }
void apiStatusDestroy(sh_status* st) { delete st; }
size_t apiStatusReasonCount(const sh_status* st) {
  return st == nullptr ? 0 : st->status.reasons().size();
}
sh_str apiStatusReasonAt(const sh_status* st, size_t i) {
  if (st == nullptr || i >= st->status.reasons().size()) {
    return sh_str{nullptr, 0};
  }
  const std::string& r = st->status.reasons()[i];
  return sh_str{r.data(), r.size()};
}

size_t apiPdbs(sh_cycle* c, const sh_pdb* const** out) {
  if (!present("pod_disruption_budgets", "out", out)) {
    return 0;
  }
  *out = nullptr;
  if (c == nullptr || c->snapshot == nullptr || c->snapshot->objects == nullptr) {
    return 0;
  }
  const std::vector<const sh_pdb*>& pdbs = c->snapshot->objects->pdbs();
  *out = pdbs.data();
  return pdbs.size();
}

uint64_t apiCycleRandom(sh_cycle* c) {
  if (c != nullptr && c->host != nullptr) {
    return c->host->random();
  }
  // No host (a plugin driven on its own): a fixed sequence, still reproducible.
  thread_local uint64_t state = 0x9e3779b97f4a7c15ull;
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void apiParallelFor(sh_cycle* c, size_t count, void (*fn)(void*, size_t), void* ctx) {
  if (!present("parallel_for", "fn", fn)) {
    return;
  }
  if (count > kMaxArgumentCount) {
    misuse("parallel_for", "count " + std::to_string(count) + " (at most " +
                               std::to_string(kMaxArgumentCount) + ")");
    return;
  }
  if (c == nullptr || c->host == nullptr) {
    for (size_t i = 0; i < count; ++i) {
      fn(ctx, i);
    }
    return;
  }
  c->host->parallelFor(count, [&](std::size_t i) { fn(ctx, i); });
}

sh_sim* apiSimBegin(sh_cycle* c, const sh_pod* pod, const sh_node_info* node) {
  if (c == nullptr || pod == nullptr || node == nullptr) {
    return nullptr;
  }
  const model::NodeInfo* info = snapshotNodeInfo(*c, *node);
  if (info == nullptr) {
    return nullptr;
  }
  try {
    return new sh_sim(*c, *pod, *info);
  } catch (const std::exception& e) {
    spdlog::error("sim_begin: {}", e.what());
    return nullptr;
  }
}
const sh_node_info* apiSimNodeInfo(sh_sim* s) { return s == nullptr ? nullptr : &s->nodeInfo(); }
sh_cycle* apiSimCycle(sh_sim* s) { return s == nullptr ? nullptr : s->state.get(); }

sh_code apiSimRemovePod(sh_sim* s, const sh_pod* other, sh_status* st) {
  if (s == nullptr || other == nullptr) {
    addReason(st, "sim_remove_pod: no sim or no pod");
    return SH_ERROR;
  }
  return reportStatus(s->removePod(*other), st);
}
sh_code apiSimAddPod(sh_sim* s, const sh_pod* other, sh_status* st) {
  if (s == nullptr || other == nullptr) {
    addReason(st, "sim_add_pod: no sim or no pod");
    return SH_ERROR;
  }
  return reportStatus(s->addPod(*other), st);
}
sh_code apiSimFilter(sh_sim* s, sh_status* st) {
  if (s == nullptr) {
    addReason(st, "sim_filter: no sim");
    return SH_ERROR;
  }
  return reportStatus(s->filter(), st);
}
void apiSimEnd(sh_sim* s) { delete s; }

sh_code apiPreemptVictims(sh_cycle* c, const sh_pod* preemptor, const char* node, size_t len,
                          const sh_pod* const* victims, size_t count, sh_status* st) {
  auto nodeName = text("preempt_victims", "node_name", node, len);
  if (!nodeName) {
    addReason(st, "preempt_victims: invalid node name");
    return SH_ERROR;
  }
  if (count > kMaxArgumentCount) {
    misuse("preempt_victims", "victim_count " + std::to_string(count) + " (at most " +
                                  std::to_string(kMaxArgumentCount) + ")");
    addReason(st, "preempt_victims: too many victims");
    return SH_ERROR;
  }
  if (c == nullptr || preemptor == nullptr || (count > 0 && victims == nullptr)) {
    addReason(st, "preempt_victims: missing cycle, preemptor or victims");
    return SH_ERROR;
  }
  if (c->nodeStatuses == nullptr) {
    // Evicting pods from any other point would change the cluster under a running cycle.
    addReason(st, "preempt_victims: only a PostFilter plugin may evict pods");
    return SH_ERROR;
  }
  if (c->host == nullptr) {
    addReason(st, "preempt_victims: no host to evict with");
    return SH_ERROR;
  }
  std::vector<const sh_pod*> list;
  list.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (victims[i] == nullptr || model::Pod::fromView(victims[i]) == nullptr) {
      addReason(st, "preempt_victims: a victim is not a pod of the snapshot");
      return SH_ERROR;
    }
    list.push_back(victims[i]);
  }
  return reportStatus(c->host->preempt(*preemptor, *nodeName, list), st);
}

int apiPreemptionRunning(sh_host* host, const sh_pod* pod) {
  if (pod == nullptr) {
    misuse("preemption_running", "pod NULL");
    return 0;
  }
  if (host == nullptr || host->services == nullptr) {
    return 0;
  }
  return host->services->podRunningPreemption(std::string_view(pod->uid.ptr, pod->uid.len)) ? 1 : 0;
}

// What preemption_extenders hands back, kept with the cycle (sh_cycle::pin).
struct KeptCandidates {
  std::vector<std::string> nodes;
  std::vector<std::vector<const sh_pod*>> victims;
  std::vector<sh_preemption_candidate> views;
};

size_t apiPreemptionExtenders(sh_cycle* c, const sh_pod* preemptor,
                              const sh_preemption_candidate* candidates, size_t count,
                              sh_status* st, const sh_preemption_candidate** out) {
  if (out == nullptr) {
    misuse("preemption_extenders", "out NULL");
    addReason(st, "preemption_extenders: no out parameter");
    return 0;
  }
  *out = nullptr;
  if (count > kMaxArgumentCount) {
    misuse("preemption_extenders", "candidate_count " + std::to_string(count) + " (at most " +
                                       std::to_string(kMaxArgumentCount) + ")");
    addReason(st, "preemption_extenders: too many candidates");
    return 0;
  }
  if (c == nullptr || preemptor == nullptr || (count > 0 && candidates == nullptr)) {
    misuse("preemption_extenders", "a NULL cycle, preemptor or candidates");
    addReason(st, "preemption_extenders: missing cycle, preemptor or candidates");
    return 0;
  }
  if (c->nodeStatuses == nullptr) {
    addReason(st, "preemption_extenders: only a PostFilter plugin may ask the extenders");
    return 0;
  }
  std::vector<CycleHost::PreemptionCandidate> list;
  list.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const sh_preemption_candidate& in = candidates[i];
    auto node = text("preemption_extenders", "node_name", in.node_name.ptr, in.node_name.len);
    if (!node || (in.victim_count > 0 && in.victims == nullptr) ||
        in.victim_count > kMaxArgumentCount) {
      misuse("preemption_extenders", "candidate " + std::to_string(i) + " malformed");
      addReason(st, "preemption_extenders: a malformed candidate");
      return 0;
    }
    CycleHost::PreemptionCandidate candidate{std::string(*node), {}, in.pdb_violations};
    for (uint32_t v = 0; v < in.victim_count; ++v) {
      if (in.victims[v] == nullptr || model::Pod::fromView(in.victims[v]) == nullptr) {
        addReason(st, "preemption_extenders: a victim is not a pod of the snapshot");
        return 0;
      }
      candidate.victims.push_back(in.victims[v]);
    }
    list.push_back(std::move(candidate));
  }
  if (c->host != nullptr) {
    Status s = c->host->filterPreemptionCandidates(*preemptor, list);
    if (!s.ok()) {
      reportStatus(s, st);
      if (s.reasons().empty()) {
        addReason(st, "preemption_extenders: an extender failed");
      }
      return 0;
    }
  }
  auto kept = std::make_shared<KeptCandidates>();
  kept->nodes.reserve(list.size());
  kept->victims.reserve(list.size());
  kept->views.reserve(list.size());
  for (CycleHost::PreemptionCandidate& candidate : list) {
    kept->nodes.push_back(std::move(candidate.node));
    kept->victims.push_back(std::move(candidate.victims));
    const std::string& node = kept->nodes.back();
    const std::vector<const sh_pod*>& victims = kept->victims.back();
    kept->views.push_back(sh_preemption_candidate{{node.data(), node.size()},
                                                  victims.data(),
                                                  static_cast<uint32_t>(victims.size()),
                                                  candidate.pdbViolations});
  }
  *out = kept->views.empty() ? nullptr : kept->views.data();
  const size_t n = kept->views.size();
  c->pin(std::move(kept));
  return n;
}

// Upstream framework/interface.go: PodsToActivate, filled under the key "namespace/name".
void apiCycleActivatePod(sh_cycle* c, const char* ns, size_t nsLen, const char* name,
                         size_t nameLen) {
  if (c == nullptr || ns == nullptr || name == nullptr || nsLen == 0 || nameLen == 0) {
    return;
  }
  if (!text("cycle_activate_pod", "ns", ns, nsLen) ||
      !text("cycle_activate_pod", "name", name, nameLen)) {
    return;
  }
  try {
    std::string key;
    key.reserve(nsLen + 1 + nameLen);
    key.append(ns, nsLen).append(1, '/').append(name, nameLen);
    c->addPodToActivate(std::move(key));
  } catch (const std::exception& e) {  // nothing may unwind into the plugin
    spdlog::error("cycle_activate_pod: {}", e.what());
  }
}

const sh_host_api kApi = {
    sizeof(sh_host_api),
    SH_ABI_MAJOR,
    SH_ABI_MINOR,
    &apiLog,
    &apiStatusAddReason,
    &apiIntern,
    &apiIdStr,
    &apiArgsType,
    &apiArgsGet,
    &apiArgsSize,
    &apiArgsAt,
    &apiArgsKeyAt,
    &apiArgsInt,
    &apiArgsDouble,
    &apiArgsBool,
    &apiArgsString,
    &apiArgsError,
    &apiCycleWrite,
    &apiCycleRead,
    &apiCycleSnapshot,
    &apiSnapNodeCount,
    &apiSnapNodeAt,
    &apiSnapNodeByName,
    &apiSnapWithAffinity,
    &apiSnapWithAntiAffinity,
    &apiPrefilterAddNode,
    &apiNodeFilterCode,
    &apiPostfilterNominate,
    &apiWaitingAllow,
    &apiWaitingReject,
    &apiBindPod,
    &apiPodJson,
    &apiNodeJson,
    &apiNamespaceLabels,
    &apiWorkloadSelectors,
    &apiStatusCreate,
    &apiStatusDestroy,
    &apiStatusReasonCount,
    &apiStatusReasonAt,
    &apiPdbs,
    &apiCycleRandom,
    &apiParallelFor,
    &apiSimBegin,
    &apiSimNodeInfo,
    &apiSimCycle,
    &apiSimRemovePod,
    &apiSimAddPod,
    &apiSimFilter,
    &apiSimEnd,
    &apiPreemptVictims,
    &apiCycleActivatePod,
    &object_services::get,
    &object_services::list,
    &object_services::objectJson,
    &object_services::jsonType,
    &object_services::jsonGet,
    &object_services::jsonPath,
    &object_services::jsonSize,
    &object_services::jsonAt,
    &object_services::jsonKeyAt,
    &object_services::jsonInt,
    &object_services::jsonDouble,
    &object_services::jsonBool,
    &object_services::jsonString,
    &object_services::write,
    &object_services::assume,
    &object_services::restore,
    &apiSnapPvcInUse,
    &apiPodManifest,
    &apiNodeManifest,
    &apiWritesPlanned,
    &apiCycleWait,
    &object_services::kindVersion,
    &apiPreemptionRunning,
    &apiPreemptionExtenders,
};

}  // namespace

const sh_host_api* hostApi() { return &kApi; }

uint64_t hostServiceMisuses() { return service::misuses.load(std::memory_order_relaxed); }

}  // namespace sh
