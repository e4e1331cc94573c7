// A plugin whose queue-facing behaviour is scripted by its args, for the queue tests. Built
// under several names (QUEUE_PLUGIN_NAME); QueueNoEvents is built without EventsToRegister.
//
// args: {
//   "gateLabel": "hold",        // PreEnqueue: Unschedulable while the pod has this label key
//   "gateCode": "Error",        //   ... with this code instead (any sh_code name)
//   "events": [                 // EventsToRegister, in order; index i is registration i
//     {"resource": "Node", "actions": ["Add", "UpdateNodeTaint"], "hint": "Queue"}
//   ]
// }
// hint: "none" (no hint function: always Queue), "Queue", "QueueSkip",
//       "SamePod" (Queue when the event's new pod is the queued pod),
//       "PodLabel=<key>" (Queue when the queued pod has label <key>),
//       "NewNodeLabel=<key>" (Queue when the event's new node has label <key>),
//       "Bogus" (an out-of-range answer, which the host must read as Queue).
#include <schedhost/plugin.hpp>
#include <string>
#include <vector>

#ifndef QUEUE_PLUGIN_NAME
#define QUEUE_PLUGIN_NAME "QueueA"
#endif

namespace {

using schedhost::Args;
using schedhost::EventRegistration;
using schedhost::Status;

std::string_view str(sh_str s) { return {s.ptr, s.len}; }

sh_event_resource resourceFromName(std::string_view n) {
  static const char* kNames[] = {"Pod",
                                 "Node",
                                 "PersistentVolume",
                                 "PersistentVolumeClaim",
                                 "CSINode",
                                 "CSIDriver",
                                 "VolumeAttachment",
                                 "CSIStorageCapacity",
                                 "StorageClass",
                                 "ResourceClaim",
                                 "ResourceSlice",
                                 "DeviceClass",
                                 "*"};
  for (int i = 0; i < 13; ++i) {
    if (n == kNames[i]) {
      return static_cast<sh_event_resource>(i);
    }
  }
  return SH_RESOURCE_WILDCARD;
}

uint32_t actionFromName(std::string_view n) {
  static const char* kNames[] = {"Add",
                                 "Delete",
                                 "UpdateNodeAllocatable",
                                 "UpdateNodeLabel",
                                 "UpdateNodeTaint",
                                 "UpdateNodeCondition",
                                 "UpdateNodeAnnotation",
                                 "UpdateNodeDeclaredFeature",
                                 "UpdatePodLabel",
                                 "UpdatePodScaleDown",
                                 "UpdatePodToleration",
                                 "UpdatePodSchedulingGatesEliminated",
                                 "UpdatePodGeneratedResourceClaim"};
  for (int i = 0; i < 13; ++i) {
    if (n == kNames[i]) {
      return 1u << i;
    }
  }
  if (n == "Update") {
    return SH_ACTION_UPDATE;
  }
  if (n == "All") {
    return SH_ACTION_ALL;
  }
  return 0;
}

sh_code codeFromName(std::string_view n) {
  static const char* kNames[] = {
      "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
      "Wait",    "Skip",  "Pending"};
  for (int i = 0; i < 7; ++i) {
    if (n == kNames[i]) {
      return static_cast<sh_code>(i);
    }
  }
  return SH_UNSCHEDULABLE;
}

bool hasLabel(const sh_label* labels, uint32_t n, std::string_view key) {
  for (uint32_t i = 0; i < n; ++i) {
    if (str(labels[i].key_str) == key) {
      return true;
    }
  }
  return false;
}

class QueueScripted : public schedhost::PreEnqueuePlugin
#ifndef QUEUE_PLUGIN_NO_EVENTS
    ,
                      public schedhost::EnqueueExtensions
#endif
{
 public:
  QueueScripted(schedhost::Host&, const Args& args) {
    gateLabel_ = std::string(args["gateLabel"].asString());
    if (args["gateCode"].present()) {
      gateCode_ = codeFromName(args["gateCode"].asString());
    }
    Args events = args["events"];
    for (std::size_t i = 0; i < events.size(); ++i) {
      Args e = events.at(i);
      uint32_t actions = 0;
      Args names = e["actions"];
      for (std::size_t j = 0; j < names.size(); ++j) {
        actions |= actionFromName(names.at(j).asString());
      }
      std::string hint = e["hint"].present() ? std::string(e["hint"].asString()) : "none";
      events_.push_back({resourceFromName(e["resource"].asString()), actions, hint != "none"});
      hints_.push_back(hint);
    }
  }

  Status preEnqueue(const sh_pod& pod) {
    if (!gateLabel_.empty() && hasLabel(pod.labels, pod.label_count, gateLabel_)) {
      return Status::make(gateCode_, "held by label " + gateLabel_);
    }
    return Status::success();
  }

  std::vector<EventRegistration> eventsToRegister() { return events_; }

  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event) {
    const std::string& hint = hints_.at(index);
    if (hint == "Queue") {
      return SH_QUEUE;
    }
    if (hint == "QueueSkip") {
      return SH_QUEUE_SKIP;
    }
    if (hint == "SamePod") {
      return event.new_pod != nullptr && str(event.new_pod->uid) == str(pod.uid) ? SH_QUEUE
                                                                                 : SH_QUEUE_SKIP;
    }
    if (hint.rfind("PodLabel=", 0) == 0) {
      return hasLabel(pod.labels, pod.label_count, hint.substr(9)) ? SH_QUEUE : SH_QUEUE_SKIP;
    }
    if (hint.rfind("NewNodeLabel=", 0) == 0) {
      const sh_node* n = event.new_node;
      return n != nullptr && hasLabel(n->labels, n->label_count, hint.substr(13)) ? SH_QUEUE
                                                                                  : SH_QUEUE_SKIP;
    }
    if (hint == "Bogus") {
      return static_cast<sh_queueing_hint>(7);
    }
    return SH_QUEUE_SKIP;
  }

 private:
  std::string gateLabel_;
  sh_code gateCode_ = SH_UNSCHEDULABLE_AND_UNRESOLVABLE;
  std::vector<EventRegistration> events_;
  std::vector<std::string> hints_;
};

}  // namespace

SCHEDHOST_PLUGIN(QueueScripted, QUEUE_PLUGIN_NAME, "0.0.1")
