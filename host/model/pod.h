// A pod as the host models it: an immutable object that owns every byte its sh_pod view
// points at, so the view can be handed to plugins without copying.
//
// Lifecycle: parse_pod() builds a Pod once and hands it out as shared_ptr<const Pod>; a
// changed pod is a new Pod. A Pod never moves (no copy, no move), so its view stays valid for
// as long as any shared_ptr to it lives. Safe to read from any thread.
#ifndef SCHEDHOST_HOST_MODEL_POD_H
#define SCHEDHOST_HOST_MODEL_POD_H

#include <schedhost/plugin.h>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "host/model/arena.h"
#include "host/model/lazy_manifest.h"

namespace sh::model {

// A change of a pod manifest, made on a copy of the base pod's manifest when a derived pod's
// json() is first asked for (bindToNode).
using ManifestEdit = std::function<void(boost::json::object& manifest)>;

class Pod : public std::enable_shared_from_this<Pod> {
  struct Key {
    explicit Key() = default;
  };

 public:
  explicit Pod(Key) { block_.owner = this; }
  Pod(const Pod&) = delete;
  Pod& operator=(const Pod&) = delete;

  // The ABI view; every pointer in it points into this Pod (or the pod it was derived from),
  // the interner, or static text (a bound copy's PodScheduled condition).
  const sh_pod& view() const { return block_.view; }

  // The Pod that owns a view handed out by view() (plugins pass views back to the host).
  // `v` must come from a Pod's view(); nullptr gives nullptr.
  static const Pod* fromView(const sh_pod* v) {
    return v == nullptr ? nullptr : reinterpret_cast<const ViewBlock*>(v)->owner;
  }

  std::string_view uid() const { return text(block_.view.uid); }
  std::string_view name() const { return text(block_.view.name); }
  std::string_view namespaceName() const { return text(block_.view.namespace_); }
  std::string_view nodeName() const { return text(block_.view.node_name); }
  // Whether spec.priority was set (view().priority is 0 otherwise).
  bool hasPriority() const { return hasPriority_; }
  // spec.priorityClassName, for resolving the priority when spec.priority is unset.
  std::string_view priorityClassName() const { return text(priorityClassName_); }
  // Pods with any pod affinity or anti-affinity (NodeInfo.PodsWithAffinity).
  bool hasAffinity() const {
    return block_.view.pod_affinity != nullptr || block_.view.pod_anti_affinity != nullptr;
  }
  // Pods with at least one required anti-affinity term (PodsWithRequiredAntiAffinity).
  bool hasRequiredAntiAffinity() const {
    const sh_pod_affinity* anti = block_.view.pod_anti_affinity;
    return anti != nullptr && anti->required_count > 0;
  }
  // The manifest this pod was parsed from, serialised. For a pod made by assignToNode,
  // withNominatedNode or bindToNode, the base manifest with the copy's changes made (built on
  // first use, on the thread that asks first).
  const std::string& json() const;
  // json() as a JSON tree, parsed on first use and kept (the pod_manifest service).
  const boost::json::value& manifest() const {
    return manifest_.get([this]() -> const std::string& { return json(); });
  }

 private:
  friend class PodParser;
  friend std::shared_ptr<const Pod> assignToNode(const Pod& pod, std::string_view node);
  friend std::shared_ptr<const Pod> withNominatedNode(const Pod& pod, std::string_view node);
  friend std::shared_ptr<const Pod> bindToNode(const Pod& pod, std::string_view node,
                                               ManifestEdit manifestEdit);
  // A copy sharing this pod's base (see base_), with the overrides carried over.
  std::shared_ptr<Pod> derivedCopy() const;

  static std::string_view text(sh_str s) { return {s.ptr, s.len}; }

  Arena arena_;
  // The view comes first in a standard-layout block, so a view pointer converts back to its
  // block and from there to its owner.
  struct ViewBlock {
    sh_pod view{};
    const Pod* owner = nullptr;
  };
  ViewBlock block_;
  mutable std::string json_;
  LazyManifest manifest_;
  // A pod made by assign_to_node or with_nominated_node shares the arena of the pod it was
  // made from: its view is the base's view with node_name pointing at nodeName_ and/or
  // nominated_node_name at nominatedNodeName_, as the flags say.
  std::shared_ptr<const Pod> base_;
  std::string nodeName_;
  std::string nominatedNodeName_;
  bool overridesNodeName_ = false;
  bool overridesNominated_ = false;
  // A pod made by bindToNode: its own status.conditions (the view's conditions point here)
  // and the edit json() makes to the base manifest after the overrides above. Such a pod is
  // the base of the copies made from it, which keep it alive.
  std::vector<sh_pod_condition> conditions_;
  ManifestEdit manifestEdit_;
  mutable std::once_flag jsonOnce_;
  bool hasPriority_ = false;
  sh_str priorityClassName_{"", 0};
};

// Parses a v1.Pod. On malformed input returns nullptr and sets `error` to every problem
// found, each prefixed by its JSON path ("spec.priority: expected integer, got string").
// Never throws. `text`, when not empty, is `json` as JSON text (a watch event's object as the
// server sent it): it becomes the pod's manifest as it is, instead of `json` serialised again.
std::shared_ptr<const Pod> parsePod(const boost::json::value& json, std::string& error,
                                    std::string_view text = {});
// Same, from JSON text; malformed JSON gives "invalid JSON: <reason>".
std::shared_ptr<const Pod> parsePodJson(std::string_view jsonText, std::string& error);
// JSON text goes to parse_pod_json; a literal here would parse as a JSON string.
std::shared_ptr<const Pod> parsePod(const char* jsonText, std::string& error) = delete;

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_POD_H
