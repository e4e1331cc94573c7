#include "host/model/cluster_objects.h"

#include <algorithm>

#include "host/common/limits.h"
#include "host/model/field_parsers.h"
#include "host/model/json_cursor.h"
#include "host/model/selector_parser.h"

namespace sh::model {
namespace {

// Every label of `selector` (a map selector) present with the same value in `labels`.
// Both are sorted by key id. An empty selector selects nothing (a Service without a
// selector selects no pods).
bool mapSelects(const std::vector<sh_label>& selector, const sh_label* labels, uint32_t count) {
  if (selector.empty()) {
    return false;
  }
  for (const sh_label& want : selector) {
    const sh_label* end = labels + count;
    const sh_label* it = std::lower_bound(labels, end, want.key,
                                          [](const sh_label& l, sh_id key) { return l.key < key; });
    if (it == end || it->key != want.key || it->value != want.value) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool ClusterObjects::keeps(std::string_view kind) {
  return kind == "Namespace" || kind == "Service" || kind == "ReplicationController" ||
         kind == "ReplicaSet" || kind == "StatefulSet" || kind == "PodDisruptionBudget" ||
         kind == "PriorityClass";
}

bool ClusterObjects::add(const boost::json::value& object, std::string& error) {
  ParseContext ctx;
  Cursor root(ctx, &object);
  if (!root.object()) {
    error = "expected an object";
    return false;
  }
  std::string kind(root["kind"].stringOr(""));
  Cursor meta = root["metadata"];
  std::string name(meta["name"].requiredString());
  std::string ns(meta["namespace"].stringOr(""));
  if (ns.empty()) {
    ns = "default";  // the API server's default for namespaced kinds
  }
  meta["labels"].atMost(limits::kMaxLabelsPerObject);
  meta["annotations"].atMost(limits::kMaxAnnotationsPerObject);
  if (!ctx.ok()) {
    error = ctx.message();
    return false;
  }
  if (kind == "Namespace") {
    std::vector<sh_label> labels = parseStringMap(meta["labels"]);
    if (!ctx.ok()) {
      error = ctx.message();
      return false;
    }
    namespaces_[name] = std::move(labels);
  } else if (kind == "Service" || kind == "ReplicationController") {
    // Both select with a plain label map.
    auto sel = std::make_unique<Selected>();
    sel->ns = ns;
    sel->labels = parseStringMap(root["spec"]["selector"]);
    if (!ctx.ok()) {
      error = ctx.message();
      return false;
    }
    sel->selector.match_labels = sel->labels.data();
    sel->selector.match_label_count = static_cast<uint32_t>(sel->labels.size());
    if (kind == "Service") {
      services_.push_back(std::move(sel));
    } else {
      controllers_[{ns, kind, name}] = &sel->selector;
      mapSelectors_.push_back(std::move(sel));
    }
  } else if (kind == "ReplicaSet" || kind == "StatefulSet") {
    const sh_label_selector* sel = parseLabelSelector(root["spec"]["selector"], arena_);
    if (!ctx.ok()) {
      error = ctx.message();
      return false;
    }
    if (sel != nullptr) {
      controllers_[{ns, kind, name}] = sel;
    }
  } else if (kind == "PodDisruptionBudget") {
    if (!addPdb(root, ns, name)) {
      error = ctx.message();
      return false;
    }
  } else if (kind == "PriorityClass") {
    if (!addPriorityClass(root, name)) {
      error = ctx.message();
      return false;
    }
  } else {
    error = "kind: unsupported value \"" + kind + "\"";
    return false;
  }
  ++count_;
  return true;
}

bool ClusterObjects::addPdb(const Cursor& root, const std::string& ns, const std::string& name) {
  const sh_label_selector* selector = parseLabelSelector(root["spec"]["selector"], arena_);
  Cursor status = root["status"];
  const int32_t allowed = status["disruptionsAllowed"].int32().value_or(0);
  // disruptedPods maps a pod name to the time its eviction was requested; only the names
  // matter to preemption. Sorted, so a plugin can search them.
  std::vector<std::string_view> disrupted;
  status["disruptedPods"].members([&](std::string_view pod, const Cursor& when) {
    parseTimeField(when);
    disrupted.push_back(pod);
  });
  if (!root.context().ok()) {
    return false;
  }
  std::sort(disrupted.begin(), disrupted.end());
  std::vector<sh_str> names;
  names.reserve(disrupted.size());
  for (std::string_view pod : disrupted) {
    names.push_back(arena_.str(pod));
  }
  sh_pdb view{};
  view.struct_size = sizeof(sh_pdb);
  view.disruptions_allowed = allowed;
  view.namespace_ = arena_.str(ns);
  view.name = arena_.str(name);
  view.selector = selector;
  view.disrupted_pods = arena_.array(names);
  view.disrupted_pod_count = static_cast<uint32_t>(names.size());
  const sh_pdb* stored = arena_.one(view);

  auto key = [](const sh_pdb* p) { return std::pair(sv(p->namespace_), sv(p->name)); };
  auto it = std::lower_bound(pdbs_.begin(), pdbs_.end(), stored,
                             [&](const sh_pdb* a, const sh_pdb* b) { return key(a) < key(b); });
  if (it != pdbs_.end() && key(*it) == key(stored)) {
    *it = stored;  // the same budget again: the newer one replaces it
  } else {
    pdbs_.insert(it, stored);
  }
  return true;
}

bool ClusterObjects::addPriorityClass(const Cursor& root, const std::string& name) {
  PriorityClassInfo info;
  info.name = name;
  Cursor value = root["value"];
  info.value = value.int32().value_or(0);
  if (!value.present()) {
    value.fail("required");
  }
  info.globalDefault = root["globalDefault"].boolean().value_or(false);
  Cursor policy = root["preemptionPolicy"];
  std::string_view p = policy.stringOr("");
  if (p == "Never") {
    info.preemptionPolicy = SH_PREEMPT_NEVER;
  } else if (!p.empty() && p != "PreemptLowerPriority") {
    failUnsupported(policy, p, "\"PreemptLowerPriority\", \"Never\"");
  }
  if (!root.context().ok()) {
    return false;
  }
  priorityClasses_[name] = std::move(info);
  globalDefault_ = nullptr;
  for (const auto& [n, c] : priorityClasses_) {
    // Name order, so among equal values the first name wins.
    if (c.globalDefault && (globalDefault_ == nullptr || c.value < globalDefault_->value)) {
      globalDefault_ = &c;
    }
  }
  return true;
}

const PriorityClassInfo* ClusterObjects::priorityClass(std::string_view name) const {
  auto it = priorityClasses_.find(name);
  return it == priorityClasses_.end() ? nullptr : &it->second;
}

const std::vector<sh_label>* ClusterObjects::namespaceLabels(std::string_view ns) const {
  auto it = namespaces_.find(std::string(ns));
  return it == namespaces_.end() ? nullptr : &it->second;
}

void ClusterObjects::workloadSelectors(const sh_pod& pod,
                                       std::vector<const sh_label_selector*>& out) const {
  const std::string_view ns = sv(pod.namespace_);
  for (const auto& s : services_) {
    if (s->ns == ns && mapSelects(s->labels, pod.labels, pod.label_count)) {
      out.push_back(&s->selector);
    }
  }
  for (uint32_t i = 0; i < pod.owner_ref_count; ++i) {
    const sh_owner_ref& ref = pod.owner_refs[i];
    if (ref.controller == 0) {
      continue;
    }
    auto it =
        controllers_.find({std::string(ns), std::string(sv(ref.kind)), std::string(sv(ref.name))});
    if (it != controllers_.end()) {
      out.push_back(it->second);
    }
    break;  // only the controller counts
  }
}

}  // namespace sh::model
