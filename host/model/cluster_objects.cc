#include "host/model/cluster_objects.h"

#include <algorithm>

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
    const sh_label* it = std::lower_bound(
        labels, end, want.key, [](const sh_label& l, sh_id key) { return l.key < key; });
    if (it == end || it->key != want.key || it->value != want.value) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool ClusterObjects::keeps(std::string_view kind) {
  return kind == "Namespace" || kind == "Service" || kind == "ReplicationController" ||
         kind == "ReplicaSet" || kind == "StatefulSet";
}

bool ClusterObjects::add(const boost::json::value& object, std::string& error) {
  ParseContext ctx;
  Cursor root(ctx, &object);
  if (!root.object()) {
    error = "expected an object";
    return false;
  }
  std::string kind(root["kind"].string_or(""));
  Cursor meta = root["metadata"];
  std::string name(meta["name"].required_string());
  std::string ns(meta["namespace"].string_or("default"));
  if (!ctx.ok()) {
    error = ctx.message();
    return false;
  }
  if (kind == "Namespace") {
    std::vector<sh_label> labels = parse_string_map(meta["labels"]);
    if (!ctx.ok()) {
      error = ctx.message();
      return false;
    }
    namespaces_[name] = std::move(labels);
  } else if (kind == "Service" || kind == "ReplicationController") {
    // Both select with a plain label map.
    auto sel = std::make_unique<Selected>();
    sel->ns = ns;
    sel->labels = parse_string_map(root["spec"]["selector"]);
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
    const sh_label_selector* sel = parse_label_selector(root["spec"]["selector"], arena_);
    if (!ctx.ok()) {
      error = ctx.message();
      return false;
    }
    if (sel != nullptr) {
      controllers_[{ns, kind, name}] = sel;
    }
  } else {
    error = "kind: unsupported value \"" + kind + "\"";
    return false;
  }
  ++count_;
  return true;
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
    auto it = controllers_.find({std::string(ns), std::string(sv(ref.kind)),
                                 std::string(sv(ref.name))});
    if (it != controllers_.end()) {
      out.push_back(it->second);
    }
    break;  // only the controller counts
  }
}

}  // namespace sh::model
