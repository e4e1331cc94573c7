#include "host/connectors/embedded/embedded_cluster.h"

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/json/parse.hpp>

#include "host/common/limits.h"
#include "host/connectors/embedded/line_reader.h"
#include "host/connectors/object_file.h"
#include "host/connectors/pod_patch.h"
#include "host/model/pod_assign.h"

namespace sh::connectors {

namespace {

using Type = ClusterChange::Type;

constexpr std::size_t kMaxJsonDepth = limits::kMaxJsonDepth;

// What one line of the change stream asks for.
struct WatchLine {
  enum class What { kChange, kSkip, kBad };
  What what = What::kBad;
  Type type = Type::kAdded;
  boost::json::value object;
  std::string error;  // kBad
};

WatchLine parseWatchLine(std::string_view text) {
  WatchLine w;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(boost::json::string_view(text.data(), text.size()), ec,
                                            {}, jsonParseOptions());
  if (ec) {
    w.error = jsonErrorText(ec);
    return w;
  }
  boost::json::object* o = v.if_object();
  boost::json::value* type = o != nullptr ? o->if_contains("type") : nullptr;
  boost::json::value* object = o != nullptr ? o->if_contains("object") : nullptr;
  if (type == nullptr || !type->is_string() || object == nullptr) {
    w.error = R"(expected a watch event {"type": "ADDED|MODIFIED|DELETED", "object": {...}})";
    return w;
  }
  std::string_view t = type->as_string();
  if (t == "ADDED") {
    w.type = Type::kAdded;
  } else if (t == "MODIFIED") {
    w.type = Type::kModified;
  } else if (t == "DELETED") {
    w.type = Type::kDeleted;
  } else if (t == "BOOKMARK") {
    w.what = WatchLine::What::kSkip;  // only advances a resourceVersion we do not track
    return w;
  } else if (t == "ERROR") {
    // The object is a Status (e.g. 410 Expired); say what it says.
    std::string_view message;
    if (const boost::json::object* status = object->if_object()) {
      const boost::json::value* m = status->if_contains("message");
      if (m != nullptr && m->is_string()) {
        message = m->as_string();
      }
    }
    w.error = "watch ERROR event" + (message.empty() ? "" : ": " + std::string(message));
    return w;
  } else {
    w.error = "unknown event type \"" + std::string(t) + "\"";
    return w;
  }
  if (!object->is_object()) {
    w.error = "object: expected an object";
    return w;
  }
  w.what = WatchLine::What::kChange;
  w.object = std::move(*object);
  return w;
}

std::string source(const std::string& name, std::size_t line) {
  return name + ":" + std::to_string(line);
}

// Runs fn(0) .. fn(n - 1), split over the machine's cores when n is large enough to pay for
// the threads. Each index is run exactly once; fn must be safe to run concurrently for
// different indices.
void forEachIndex(std::size_t n, const std::function<void(std::size_t)>& fn) {
  constexpr std::size_t kPerThread = 256;
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>({cores, 8, n / kPerThread});
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      fn(i);
    }
    return;
  }
  auto slice = [&](std::size_t t) {
    for (std::size_t i = n * t / threads; i < n * (t + 1) / threads; ++i) {
      fn(i);
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) {
    helpers.emplace_back(slice, t);
  }
  slice(0);
  for (std::thread& h : helpers) {
    h.join();
  }
}

Status podPrecondition(const model::Pod& pod, const model::Pod& stored) {
  if (!pod.uid().empty() && !stored.uid().empty() && pod.uid() != stored.uid()) {
    return Status::error("pod " + podKey(stored) + ": precondition failed: UID \"" +
                         std::string(pod.uid()) + "\" does not match \"" +
                         std::string(stored.uid()) + "\"");
  }
  return Status::success();
}

}  // namespace

EmbeddedCluster::EmbeddedCluster(Options options) : options_(std::move(options)) {}

EmbeddedCluster::~EmbeddedCluster() {
  stop();
  if (reader_.joinable()) {
    reader_.join();
  }
}

Status EmbeddedCluster::start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) {
      return Status::error("embedded cluster: start() called twice");
    }
    started_ = true;
  }
  if (options_.initialState == "-" && options_.changes == "-") {
    return Status::error("the initial state and the changes cannot both be read from stdin");
  }
  if (!options_.changes.empty()) {
    std::string error;
    lines_ = LineReader::open(options_.changes, error);
    if (lines_ == nullptr) {
      return Status::error(error);
    }
  }
  if (!options_.initialState.empty()) {
    Status s = loadInitialState();
    if (!s.ok()) {
      return s;
    }
  }
  if (lines_ != nullptr) {
    reader_ = std::thread([this] { readChanges(); });
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    inputDone_ = true;
    queue_.notify();
  }
  return Status::success();
}

Status EmbeddedCluster::loadInitialState() {
  std::string error;
  std::optional<std::string> text = readFileText(options_.initialState, error);
  if (!text.has_value()) {
    return Status::error(error);
  }
  const std::string name = displayName(options_.initialState);
  ObjectFileContents contents = parseObjectFile(*text);
  text.reset();
  if (contents.objects.empty() && !contents.problems.empty()) {
    // Not one object: not a cluster file at all (binary data, the wrong file), which a run
    // must not take for an empty cluster.
    const FileProblem& first = contents.problems.front();
    return Status::error(source(name, first.line) + ": " + first.reason +
                         " (no object could be read from the file)");
  }

  // Parse and admit every object first (warnings in line order), then apply nodes, then the
  // raw kinds, then pods, so a pod listed before its node still finds it.
  std::vector<std::pair<std::size_t, std::string>> problems;
  for (FileProblem& p : contents.problems) {
    problems.emplace_back(p.line, source(name, p.line) + ": " + p.reason);
  }
  struct Ranked {
    int rank;
    PreparedChange change;
    std::string source;
    std::size_t line;
  };
  // Parsing is most of a large file's loading time: the objects are parsed on every core,
  // each into its own slot, and taken in file order.
  std::vector<std::optional<PreparedChange>> prepared(contents.objects.size());
  std::vector<std::string> reasons(contents.objects.size());
  forEachIndex(contents.objects.size(), [&](std::size_t i) {
    prepared[i] = prepareChange(Type::kAdded, std::move(contents.objects[i].value), reasons[i]);
  });
  std::vector<Ranked> ranked;
  ranked.reserve(contents.objects.size());
  for (std::size_t i = 0; i < contents.objects.size(); ++i) {
    const std::size_t line = contents.objects[i].line;
    std::string where = source(name, line);
    if (!prepared[i].has_value()) {
      problems.emplace_back(line, where + ": " + reasons[i]);
      continue;
    }
    int rank = prepared[i]->kind == "Node" ? 0 : prepared[i]->kind == "Pod" ? 2 : 1;
    ranked.push_back({rank, std::move(*prepared[i]), std::move(where), line});
  }
  prepared.clear();
  // Pods are admitted against every PriorityClass of the file, as an API server that held
  // them all would have admitted them. The classes are stored before the pods, in file order,
  // so a later duplicate wins here as in the store; prepareChange() checked each one.
  model::ClusterObjects classes;
  for (const Ranked& r : ranked) {
    if (r.change.kind == "PriorityClass") {
      std::string ignored;
      classes.add(*r.change.raw, ignored);
    }
  }
  std::vector<char> admitted(ranked.size(), 0);
  reasons.assign(ranked.size(), std::string());
  forEachIndex(ranked.size(), [&](std::size_t i) {
    admitted[i] = admitPod(ranked[i].change, &classes, nullptr, reasons[i]) ? 1 : 0;
  });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    if (admitted[i] == 0) {
      problems.emplace_back(ranked[i].line, ranked[i].source + ": " + reasons[i]);
    } else if (kept++ != i) {
      ranked[kept - 1] = std::move(ranked[i]);
    }
  }
  ranked.resize(kept);
  std::stable_sort(problems.begin(), problems.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Ranked& a, const Ranked& b) { return a.rank < b.rank; });

  Warnings warnings;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [line, message] : problems) {
      rejectLocked(std::move(message), warnings);
    }
  }
  for (Ranked& r : ranked) {
    accept(std::move(r.change), std::move(r.source), warnings);
  }
  emit(warnings);
  return Status::success();
}

void EmbeddedCluster::readChanges() {
  LineReader::Idle idle = [this](std::chrono::milliseconds wait) {
    std::unique_lock<std::mutex> lock(mu_);
    if (wait.count() > 0) {
      readerWake_.wait_for(lock, wait, [this] { return stopped_; });
    }
    return !stopped_;
  };
  const std::size_t readAhead = std::max<std::size_t>(options_.maxReadAhead, 1);
  while (std::optional<std::string> line =
             lines_->next(options_.follow, options_.followInterval, idle)) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      readerWake_.wait(lock, [&] { return stopped_ || queue_.size() < readAhead; });
      if (stopped_) {
        break;
      }
    }
    handleLine(*line, lines_->lineNumber());
  }
  if (!lines_->error().empty()) {
    Warnings warnings{lines_->name() + ": " + lines_->error()};
    emit(warnings);
  }
  std::lock_guard<std::mutex> lock(mu_);
  inputDone_ = true;
  queue_.notify();
}

void EmbeddedCluster::handleLine(std::string_view text, std::size_t lineNumber) {
  if (const std::size_t length = lines_->tooLong(); length > 0) {
    Warnings warnings;
    {
      std::lock_guard<std::mutex> lock(mu_);
      rejectLocked(source(lines_->name(), lineNumber) + ": line of " + std::to_string(length) +
                       " bytes is longer than the limit of " + std::to_string(lines_->maxLine()) +
                       " bytes",
                   warnings);
    }
    emit(warnings);
    return;
  }
  if (text.find_first_not_of(" \t\r") == std::string_view::npos) {
    return;
  }
  std::string where = source(lines_->name(), lineNumber);
  Warnings warnings;
  WatchLine w = parseWatchLine(text);
  if (w.what == WatchLine::What::kChange) {
    std::string reason;
    std::optional<PreparedChange> change = prepareChange(w.type, std::move(w.object), reason);
    if (change.has_value()) {
      accept(std::move(*change), std::move(where), warnings);
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      rejectLocked(where + ": " + reason, warnings);
    }
  } else if (w.what == WatchLine::What::kBad) {
    std::lock_guard<std::mutex> lock(mu_);
    rejectLocked(where + ": " + w.error, warnings);
  }
  emit(warnings);
}

void EmbeddedCluster::accept(PreparedChange&& change, std::string where, Warnings& warnings) {
  if (change.needsAdmission()) {
    // Outside the lock: admission parses the pod. The classes it reads only change on this
    // thread (start(), then the reader), so they are still current when the pod is stored.
    std::shared_ptr<const model::ClusterObjects> objects = clusterObjects();
    std::shared_ptr<const model::Pod> stored;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stored = store_.pod(change.key);
    }
    std::string reason;
    if (!admitPod(change, objects.get(), stored.get(), reason)) {
      std::lock_guard<std::mutex> lock(mu_);
      rejectLocked(where + ": " + reason, warnings);
      return;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) {
    return;
  }
  ClusterStore::Result r = store_.apply(std::move(change));
  rawGeneration_.store(store_.rawGeneration(), std::memory_order_release);
  if (r.rejected) {
    rejectLocked(where + ": " + r.warning, warnings);
  } else if (!r.warning.empty()) {
    warnings.push_back(where + ": " + r.warning);
  }
  if (r.change.has_value()) {
    r.change->source = std::move(where);
    pushLocked(std::move(*r.change));
  }
}

void EmbeddedCluster::rejectLocked(std::string message, Warnings& warnings) {
  ++rejected_;
  warnings.push_back(std::move(message));
}

void EmbeddedCluster::emit(Warnings& warnings) {
  for (std::string& w : warnings) {
    if (options_.warn) {
      options_.warn(std::move(w));
    } else {
      spdlog::warn("{}", w);
    }
  }
  warnings.clear();
}

void EmbeddedCluster::pushLocked(ClusterChange change) {
  queue_.push(std::move(change));
  queue_.notify();
}

std::optional<ClusterChange> EmbeddedCluster::next(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  std::optional<ClusterChange> change = queue_.next(lock, timeout, stopped_);
  if (change) {
    readerWake_.notify_all();
  }
  return change;
}

std::size_t EmbeddedCluster::nextBatch(std::vector<ClusterChange>& out,
                                       std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const std::size_t n = queue_.takeAll(lock, timeout, stopped_, out);
  if (n > 0) {
    readerWake_.notify_all();
  }
  return n;
}

bool EmbeddedCluster::exhausted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_ || (inputDone_ && queue_.empty());
}

std::size_t EmbeddedCluster::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void EmbeddedCluster::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  queue_.notify();
  readerWake_.notify_all();
}

Status EmbeddedCluster::updatePod(const std::string& key, const PodCheck& check,
                                  const PodEdit& edit, const PodCommit& commit) {
  for (;;) {
    std::shared_ptr<const model::Pod> stored;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stored = store_.pod(key);
      if (stored == nullptr) {
        return Status::error("pod " + key + " not found");
      }
      Status s = check(*stored);
      if (!s.ok()) {
        return s;
      }
    }
    // Edit and parse a copy outside the lock; binds from several threads overlap here.
    boost::system::error_code ec;
    boost::json::parse_options opts;
    opts.max_depth = kMaxJsonDepth;
    boost::json::value manifest = boost::json::parse(stored->json(), ec, {}, opts);
    if (ec || !manifest.is_object()) {
      return Status::error("pod " + key + ": stored manifest does not parse: " + ec.message());
    }
    edit(manifest.as_object());
    std::string error;
    std::shared_ptr<const model::Pod> updated = model::parsePod(manifest, error);
    if (updated == nullptr) {
      return Status::error("pod " + key + ": edited manifest does not parse: " + error);
    }
    if (beforeCommitForTest_) {
      beforeCommitForTest_();
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (store_.pod(key) != stored) {
      continue;  // changed (or deleted) meanwhile: check again against the new version
    }
    Status s = check(*stored);
    if (!s.ok()) {
      return s;
    }
    store_.replacePod(key, updated);
    commit(std::move(stored), std::move(updated));
    return Status::success();
  }
}

Status EmbeddedCluster::bind(const model::Pod& pod, std::string_view nodeName) {
  const std::string key = podKey(pod);
  const std::string node(nodeName);
  // The API server's checks (docs/cluster-protocol.md), run on the stored pod.
  auto check = [&](const model::Pod& stored) -> Status {
    Status s = podPrecondition(pod, stored);
    if (!s.ok()) {
      return s;
    }
    if (stored.view().deleting != 0) {
      return Status::error("pod " + key + " is being deleted, cannot be assigned to a host");
    }
    if (!stored.nodeName().empty()) {
      return Status::error("pod " + key + " is already assigned to node \"" +
                           std::string(stored.nodeName()) + "\"");
    }
    if (store_.node(node) == nullptr) {
      return Status::error("node \"" + node + "\" not found");
    }
    return Status::success();
  };
  // The bound pod is a copy of the stored one (model::bindToNode): nothing is parsed, and the
  // manifest with the binding patch applied is built only when someone reads it.
  const std::string now = rfc3339Now();
  for (;;) {
    std::shared_ptr<const model::Pod> stored;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stored = store_.pod(key);
      if (stored == nullptr) {
        return Status::error("pod " + key + " not found");
      }
      Status s = check(*stored);
      if (!s.ok()) {
        return s;
      }
    }
    std::shared_ptr<const model::Pod> bound = model::bindToNode(
        *stored, node,
        [node, now](boost::json::object& manifest) { applyBinding(manifest, node, now); });
    if (bound == nullptr) {
      return Status::error("pod " + key + ": cannot make the bound pod");
    }
    if (beforeCommitForTest_) {
      beforeCommitForTest_();
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (store_.pod(key) != stored) {
      continue;  // changed (or deleted) meanwhile: check again against the new version
    }
    Status s = check(*stored);
    if (!s.ok()) {
      return s;
    }
    store_.replacePod(key, bound);
    ClusterChange change;
    change.type = Type::kModified;
    change.kind = ClusterChange::Kind::kPod;
    change.oldPod = std::move(stored);
    change.curPod = std::move(bound);
    change.source = "binding";
    ++bound_;
    pushLocked(std::move(change));
    return Status::success();
  }
}

bool EmbeddedCluster::knownUnbound(const model::Pod& pod) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<const model::Pod> stored = store_.pod(podKey(pod));
  return stored != nullptr && stored->uid() == pod.uid() && stored->nodeName().empty();
}

Status EmbeddedCluster::deletePod(const model::Pod& pod, std::string_view reason) {
  const std::string key = podKey(pod);
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<const model::Pod> stored = store_.pod(key);
  if (stored == nullptr) {
    return Status::error("pod " + key + " not found");
  }
  Status s = podPrecondition(pod, *stored);
  if (!s.ok()) {
    return s;
  }
  store_.erasePod(key);
  spdlog::debug("embedded cluster: deleted pod {}: {}", key, reason);
  ClusterChange change;
  change.type = Type::kDeleted;
  change.kind = ClusterChange::Kind::kPod;
  change.oldPod = std::move(stored);
  change.source = "deletion";
  pushLocked(std::move(change));
  return Status::success();
}

void EmbeddedCluster::recordFailure(const SchedulingFailure& failure) {
  if (failure.pod == nullptr) {
    return;
  }
  const std::string key = podKey(*failure.pod);
  auto check = [&](const model::Pod& stored) -> Status {
    Status s = podPrecondition(*failure.pod, stored);
    if (s.ok() && !stored.nodeName().empty()) {
      return Status::error("pod " + key + " is bound by now");
    }
    return s;
  };
  const std::string now = rfc3339Now();
  auto edit = [&](boost::json::object& manifest) {
    applySchedulingFailure(manifest, failure.reason, failure.message, failure.nominatedNodeName,
                           now);
  };
  Status s = updatePod(key, check, edit, statusCommit());
  if (!s.ok()) {
    spdlog::debug("embedded cluster: failure of pod {} not recorded: {}", key, s.message());
  }
}

EmbeddedCluster::PodCommit EmbeddedCluster::statusCommit() {
  return [this](std::shared_ptr<const model::Pod> old, std::shared_ptr<const model::Pod> cur) {
    if (old->view().nominated_node_name.len == cur->view().nominated_node_name.len &&
        std::string_view(old->view().nominated_node_name.ptr,
                         old->view().nominated_node_name.len) ==
            std::string_view(cur->view().nominated_node_name.ptr,
                             cur->view().nominated_node_name.len)) {
      return;  // the scheduling queue ignores a status-only change
    }
    ClusterChange change;
    change.type = ClusterChange::Type::kModified;
    change.kind = ClusterChange::Kind::kPod;
    change.oldPod = std::move(old);
    change.curPod = std::move(cur);
    change.source = "status";
    pushLocked(std::move(change));
  };
}

Status EmbeddedCluster::preemptPod(const model::Pod& pod, std::string_view message) {
  auto check = [&](const model::Pod& stored) { return podPrecondition(pod, stored); };
  const std::string now = rfc3339Now();
  auto edit = [&](boost::json::object& manifest) { applyDisruptionTarget(manifest, message, now); };
  auto commit = [](std::shared_ptr<const model::Pod>, std::shared_ptr<const model::Pod>) {};
  Status s = updatePod(podKey(pod), check, edit, commit);
  if (!s.ok()) {
    return s;
  }
  return deletePod(pod, message);
}

Status EmbeddedCluster::clearNominatedNodeName(const model::Pod& pod) {
  auto check = [&](const model::Pod& stored) { return podPrecondition(pod, stored); };
  auto edit = [](boost::json::object& manifest) {
    if (boost::json::value* status = manifest.if_contains("status");
        status != nullptr && status->is_object()) {
      status->as_object().erase("nominatedNodeName");
    }
  };
  return updatePod(podKey(pod), check, edit, statusCommit());
}

void EmbeddedCluster::recordEvent(const EventRecord& event) {
  EventRecord e = event;
  e.message = truncateNote(std::move(e.message));
  if (options_.eventLog != nullptr) {
    options_.eventLog->event(e);
  }
  std::lock_guard<std::mutex> lock(eventsMu_);
  events_.push_back(std::move(e));
  while (events_.size() > options_.maxEventsKept) {
    events_.pop_front();
  }
}

std::shared_ptr<const model::Pod> EmbeddedCluster::pod(std::string_view ns,
                                                       std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return store_.pod(podKey(ns, name));
}

std::shared_ptr<const model::Node> EmbeddedCluster::node(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return store_.node(std::string(name));
}

std::vector<std::shared_ptr<const model::Pod>> EmbeddedCluster::podsOnNode(
    std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return store_.podsOnNode(name);
}

EmbeddedCluster::Contents EmbeddedCluster::contents() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {store_.nodes(), store_.pods()};
}

std::shared_ptr<const model::ClusterObjects> EmbeddedCluster::clusterObjects() const {
  {
    std::lock_guard<std::mutex> objectsLock(objectsMu_);
    if (objectsGeneration_ == rawGeneration_.load(std::memory_order_acquire)) {
      return objects_;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::lock_guard<std::mutex> objectsLock(objectsMu_);
  if (objectsGeneration_ == store_.rawGeneration()) {
    return objects_;
  }
  auto objects = std::make_shared<model::ClusterObjects>();
  for (const char* kind : {"Namespace", "Service", "ReplicationController", "ReplicaSet",
                           "StatefulSet", "PodDisruptionBudget", "PriorityClass"}) {
    for (const auto& o : store_.objectsOfKind(kind)) {
      std::string error;
      if (!objects->add(*o, error)) {
        // prepareChange() rejects what ClusterObjects cannot read, so this is not expected;
        // logged, not sent to the warning sink, as any thread may get here.
        spdlog::warn("embedded cluster: {}: {}", kind, error);
      }
    }
  }
  objectsGeneration_ = store_.rawGeneration();
  objects_ = objects->size() > 0 ? std::move(objects) : nullptr;
  return objects_;
}

ObjectPtr EmbeddedCluster::object(std::string_view apiKind, std::string_view key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return store_.object(apiKind, key);
}

std::vector<std::shared_ptr<const boost::json::value>> EmbeddedCluster::objectsOfKind(
    std::string_view kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  return store_.objectsOfKind(kind);
}

std::vector<EventRecord> EmbeddedCluster::events() const {
  std::lock_guard<std::mutex> lock(eventsMu_);
  return {events_.begin(), events_.end()};
}

std::size_t EmbeddedCluster::podCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return store_.podCount();
}

std::size_t EmbeddedCluster::nodeCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return store_.nodeCount();
}

std::size_t EmbeddedCluster::boundCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bound_;
}

std::size_t EmbeddedCluster::rejectedLines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rejected_;
}

}  // namespace sh::connectors
