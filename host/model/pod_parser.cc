// parse_pod: v1.Pod JSON -> Pod. Reads the fields kube-scheduler uses, applies the API-server
// defaulting a raw manifest has not been through (namespace, schedulerName, requests from
// limits, pod-level requests, hostNetwork host ports) and computes the effective requests.
#include <boost/json/serialize.hpp>
#include <cmath>
#include <exception>
#include <set>

#include "host/common/limits.h"
#include "host/model/field_parsers.h"
#include "host/model/image_states.h"
#include "host/model/interner.h"
#include "host/model/pod.h"
#include "host/model/pod_requests.h"
#include "host/model/selector_parser.h"

namespace sh::model {
class PodParser {
 public:
  static std::shared_ptr<const Pod> run(const boost::json::value& json, std::string& error,
                                        std::string_view text) {
    try {
      auto pod = std::make_shared<Pod>(Pod::Key{});
      ParseContext ctx;
      PodParser(ctx, *pod).parse(Cursor(ctx, &json));
      if (!ctx.ok()) {
        error = ctx.message();
        return nullptr;
      }
      // One parse, one verdict: a manifest that could not be read back is refused now, not
      // at its first status patch or binding.
      if (std::string path; findNonFinite(json, path)) {
        error = nonFiniteMessage(path, "pod");
        return nullptr;
      }
      pod->json_ = text.empty() ? boost::json::serialize(json) : std::string(text);
      return pod;
    } catch (const std::exception& e) {
      // Only allocation failure can get here; nothing escapes the parser.
      error = std::string("parsing pod: ") + e.what();
      return nullptr;
    }
  }

 private:
  PodParser(ParseContext& ctx, Pod& pod)
      : ctx_(ctx), pod_(pod), arena_(pod.arena_), v_(pod.block_.view) {}

  void parse(const Cursor& root) {
    v_.struct_size = sizeof(sh_pod);
    if (!root.object()) {
      if (!root.present()) {
        root.fail("expected object, got null");
      }
      return;
    }
    metadata(root["metadata"]);
    Cursor spec = root["spec"];
    spec.object();  // reports a non-object spec once
    Cursor status = root["status"];
    status.object();
    scheduling(spec);
    containers(spec, status);
    volumes(spec);
    specFields(spec);
    statusFields(status);
  }

  // sh_pod.spec_fields: fields the view does not carry, set (not null) in the manifest. Read
  // from the raw tree, without the cursor's checks: whatever their values are, a plugin that
  // reads them from the manifest judges them.
  void specFields(const Cursor& spec) {
    const boost::json::object* s = spec.raw() != nullptr ? spec.raw()->if_object() : nullptr;
    if (s == nullptr) {
      return;
    }
    auto set = [](const boost::json::object& o, std::string_view key) {
      auto it = o.find(key);
      return it != o.end() && !it->value().is_null();
    };
    if (set(*s, "hostUsers")) {
      v_.spec_fields |= SH_POD_FIELD_HOST_USERS;
    }
    for (std::string_view list : {"containers", "initContainers"}) {
      auto it = s->find(list);
      const boost::json::array* items = it != s->end() ? it->value().if_array() : nullptr;
      if (items == nullptr) {
        continue;
      }
      for (const boost::json::value& c : *items) {
        if (c.is_object() && set(c.get_object(), "restartPolicyRules")) {
          v_.spec_fields |= SH_POD_FIELD_RESTART_POLICY_RULES;
        }
      }
    }
  }

  void metadata(const Cursor& m) {
    v_.name = arena_.str(m["name"].requiredString());
    std::string_view ns = m["namespace"].stringOr("");
    v_.namespace_ = arena_.str(ns.empty() ? "default" : ns);
    v_.uid = arena_.str(m["uid"].stringOr(""));
    m["annotations"].atMost(limits::kMaxAnnotationsPerObject);
    Cursor labelMap = m["labels"];
    std::vector<sh_label> labels;
    if (labelMap.atMost(limits::kMaxLabelsPerObject)) {
      labels = parseStringMap(labelMap);
    }
    v_.labels = arena_.array(labels);
    v_.label_count = static_cast<uint32_t>(labels.size());
    v_.creation_unix_nanos = parseTimeField(m["creationTimestamp"]);
    Cursor deletion = m["deletionTimestamp"];
    parseTimeField(deletion);
    v_.deleting = deletion.present() ? 1 : 0;
    ownerRefs(m["ownerReferences"]);
  }

  void ownerRefs(const Cursor& c) {
    std::vector<sh_owner_ref> refs;
    c.eachObject([&](const Cursor& item) {
      sh_owner_ref r{};
      r.api_version = arena_.str(item["apiVersion"].stringOr(""));
      r.kind = arena_.str(item["kind"].stringOr(""));
      r.name = arena_.str(item["name"].stringOr(""));
      r.uid = arena_.str(item["uid"].stringOr(""));
      r.controller = item["controller"].boolean().value_or(false) ? 1 : 0;
      refs.push_back(r);
    });
    v_.owner_refs = arena_.array(refs);
    v_.owner_ref_count = static_cast<uint32_t>(refs.size());
  }

  void scheduling(const Cursor& spec) {
    v_.node_name = arena_.str(spec["nodeName"].stringOr(""));
    std::string_view scheduler = spec["schedulerName"].stringOr("");
    v_.scheduler_name = arena_.str(scheduler.empty() ? "default-scheduler" : scheduler);
    if (std::optional<int32_t> prio = spec["priority"].int32()) {
      v_.priority = *prio;
      pod_.hasPriority_ = true;
    }
    pod_.priorityClassName_ = arena_.str(spec["priorityClassName"].stringOr(""));
    Cursor policy = spec["preemptionPolicy"];
    std::string_view p = policy.stringOr("");
    if (p == "Never") {
      v_.preemption_policy = SH_PREEMPT_NEVER;
    } else if (p.empty() || p == "PreemptLowerPriority") {
      v_.preemption_policy = SH_PREEMPT_LOWER_PRIORITY;
    } else {
      failUnsupported(policy, p, "\"PreemptLowerPriority\", \"Never\"");
    }
    std::vector<sh_label> selector = parseStringMap(spec["nodeSelector"]);
    v_.node_selector = arena_.array(selector);
    v_.node_selector_count = static_cast<uint32_t>(selector.size());
    tolerations(spec["tolerations"]);
    Cursor affinity = spec["affinity"];
    if (affinity.object()) {
      v_.node_affinity = parseNodeAffinity(affinity["nodeAffinity"], arena_);
      v_.pod_affinity = parsePodAffinity(affinity["podAffinity"], arena_);
      v_.pod_anti_affinity = parsePodAffinity(affinity["podAntiAffinity"], arena_);
    }
    std::vector<sh_str> gates;
    spec["schedulingGates"].eachObject(
        [&](const Cursor& item) { gates.push_back(arena_.str(item["name"].requiredString())); });
    v_.scheduling_gates = arena_.array(gates);
    v_.scheduling_gate_count = static_cast<uint32_t>(gates.size());
    spreadConstraints(spec["topologySpreadConstraints"]);
  }

  void tolerations(const Cursor& c) {
    std::vector<sh_toleration> out;
    if (!c.atMost(limits::kMaxTolerationsPerPod)) {
      return;
    }
    c.eachObject([&](const Cursor& item) {
      sh_toleration t{};
      std::string_view key = item["key"].stringOr("");
      t.key = key.empty() ? SH_ID_NONE : intern(key);
      t.value = intern(item["value"].stringOr(""));
      std::string_view op = item["operator"].stringOr("");
      if (op.empty() || op == "Equal") {
        t.op = SH_TOLERATION_EQUAL;
      } else if (op == "Exists") {
        t.op = SH_TOLERATION_EXISTS;
      } else if (op == "Lt") {
        t.op = SH_TOLERATION_LT;
      } else if (op == "Gt") {
        t.op = SH_TOLERATION_GT;
      } else {
        t.op = SH_TOLERATION_UNKNOWN;
      }
      t.effect = parseTaintEffect(item["effect"], true);
      t.toleration_seconds = item["tolerationSeconds"].integer().value_or(-1);
      out.push_back(t);
    });
    v_.tolerations = arena_.array(out);
    v_.toleration_count = static_cast<uint32_t>(out.size());
  }

  void spreadConstraints(const Cursor& c) {
    std::vector<sh_topology_spread_constraint> out;
    c.eachObject([&](const Cursor& item) {
      sh_topology_spread_constraint t{};
      t.max_skew = item["maxSkew"].int32().value_or(0);
      t.topology_key = intern(item["topologyKey"].requiredString());
      Cursor when = item["whenUnsatisfiable"];
      std::string_view w = when.requiredString();
      if (w == "DoNotSchedule") {
        t.when_unsatisfiable = SH_DO_NOT_SCHEDULE;
      } else if (w == "ScheduleAnyway") {
        t.when_unsatisfiable = SH_SCHEDULE_ANYWAY;
      } else if (!w.empty()) {
        failUnsupported(when, w, "\"DoNotSchedule\", \"ScheduleAnyway\"");
      }
      t.min_domains = item["minDomains"].int32().value_or(0);
      t.label_selector = parseLabelSelector(item["labelSelector"], arena_);
      t.node_affinity_policy = inclusionPolicy(item["nodeAffinityPolicy"]);
      t.node_taints_policy = inclusionPolicy(item["nodeTaintsPolicy"]);
      std::vector<sh_str> keys = parseStringList(item["matchLabelKeys"], arena_);
      t.match_label_keys = arena_.array(keys);
      t.match_label_key_count = static_cast<uint32_t>(keys.size());
      out.push_back(t);
    });
    v_.topology_spread_constraints = arena_.array(out);
    v_.topology_spread_constraint_count = static_cast<uint32_t>(out.size());
  }

  static int32_t inclusionPolicy(const Cursor& c) {
    std::string_view p = c.stringOr("");
    if (p.empty()) {
      return SH_POLICY_UNSET;
    }
    if (p == "Honor") {
      return SH_POLICY_HONOR;
    }
    if (p == "Ignore") {
      return SH_POLICY_IGNORE;
    }
    failUnsupported(c, p, "\"Honor\", \"Ignore\"");
    return SH_POLICY_UNSET;
  }

  // spec.volumes as the volume plugins read them (sh_volume's table in plugin.h), and how
  // many spec.resourceClaims there are. API-server defaulting a raw manifest has not been
  // through: rbd.pool "rbd".
  void volumes(const Cursor& spec) {
    Cursor list = spec["volumes"];
    Cursor claims = spec["resourceClaims"];
    if (!list.atMost(limits::kMaxVolumesPerPod) || !claims.atMost(limits::kMaxVolumesPerPod)) {
      return;
    }
    v_.resource_claim_count = static_cast<uint32_t>(claims.size());
    std::vector<sh_volume> out;
    list.eachObject([&](const Cursor& item) { out.push_back(volume(item)); });
    v_.volumes = arena_.array(out);
    v_.volume_count = static_cast<uint32_t>(out.size());
  }

  sh_volume volume(const Cursor& item) {
    sh_volume vol{};
    vol.struct_size = sizeof(sh_volume);
    vol.claim = vol.handle = vol.driver = vol.pool = arena_.str("");
    std::string_view name = item["name"].requiredString();
    vol.name = arena_.str(name);
    // The volume's source: the first of the keys below that holds an object.
    std::optional<Cursor> src;
    auto is = [&](const char* key, int32_t kind) {
      Cursor c = item[key];
      if (src.has_value() || !c.object()) {
        return false;
      }
      vol.source = kind;
      vol.read_only = c["readOnly"].boolean().value_or(false) ? 1 : 0;
      src.emplace(c);
      return true;
    };
    if (is("persistentVolumeClaim", SH_VOLUME_PVC)) {
      vol.claim = arena_.str((*src)["claimName"].requiredString());
    } else if (is("ephemeral", SH_VOLUME_EPHEMERAL)) {
      // ephemeral.VolumeClaimName: the claim made for the pod is <pod name>-<volume name>.
      std::string claim = std::string(Pod::text(v_.name)) + "-" + std::string(name);
      vol.claim = arena_.str(claim);
    } else if (is("csi", SH_VOLUME_CSI)) {
      vol.driver = arena_.str((*src)["driver"].requiredString());
    } else if (is("gcePersistentDisk", SH_VOLUME_GCE_PD)) {
      vol.handle = arena_.str((*src)["pdName"].requiredString());
    } else if (is("awsElasticBlockStore", SH_VOLUME_AWS_EBS)) {
      vol.handle = arena_.str((*src)["volumeID"].requiredString());
    } else if (is("rbd", SH_VOLUME_RBD)) {
      vol.handle = arena_.str((*src)["image"].requiredString());
      std::string_view pool = (*src)["pool"].stringOr("");
      vol.pool = arena_.str(pool.empty() ? "rbd" : pool);
      std::vector<sh_str> monitors = parseStringList((*src)["monitors"], arena_);
      vol.monitors = arena_.array(monitors);
      vol.monitor_count = static_cast<uint32_t>(monitors.size());
    } else if (is("iscsi", SH_VOLUME_ISCSI)) {
      vol.handle = arena_.str((*src)["iqn"].requiredString());
      vol.lun = (*src)["lun"].int32().value_or(0);
    } else if (is("azureDisk", SH_VOLUME_AZURE_DISK)) {
      vol.handle = arena_.str((*src)["diskURI"].requiredString());
    } else if (is("cinder", SH_VOLUME_CINDER)) {
      vol.handle = arena_.str((*src)["volumeID"].requiredString());
    } else if (is("vsphereVolume", SH_VOLUME_VSPHERE)) {
      vol.handle = arena_.str((*src)["volumePath"].requiredString());
    } else if (is("portworxVolume", SH_VOLUME_PORTWORX)) {
      vol.handle = arena_.str((*src)["volumeID"].requiredString());
    } else if (is("azureFile", SH_VOLUME_AZURE_FILE)) {
      vol.handle = arena_.str((*src)["shareName"].requiredString());
    }
    return vol;
  }

  // Containers, init containers and image volumes: requests, host ports and images.
  void containers(const Cursor& spec, const Cursor& status) {
    bool hostNetwork = spec["hostNetwork"].boolean().value_or(false);
    Cursor init = spec["initContainers"];
    Cursor regular = spec["containers"];
    if (!init.atMost(limits::kMaxContainersPerPod) ||
        !regular.atMost(limits::kMaxContainersPerPod)) {
      return;
    }
    init.eachObject([&](const Cursor& item) {
      input_.initContainers.push_back(container(item, true, hostNetwork));
    });
    regular.eachObject([&](const Cursor& item) {
      input_.containers.push_back(container(item, false, hostNetwork));
    });
    v_.container_count = static_cast<uint32_t>(init.size() + regular.size());
    // ImageLocality order: init containers, containers, then image volumes.
    std::vector<sh_id> images = std::move(initImages_);
    images.insert(images.end(), images_.begin(), images_.end());
    spec["volumes"].eachObject([&](const Cursor& item) {
      Cursor image = item["image"];
      if (image.object()) {
        images.push_back(intern(normalizedImageName(image["reference"].stringOr(""))));
      }
    });
    v_.images = arena_.array(images);
    v_.image_count = static_cast<uint32_t>(images.size());
    // NodePorts order: containers, then restartable init containers.
    hostPorts_.insert(hostPorts_.end(), initHostPorts_.begin(), initHostPorts_.end());
    v_.host_ports = arena_.array(hostPorts_);
    v_.host_port_count = static_cast<uint32_t>(hostPorts_.size());

    Cursor podResources = spec["resources"];
    if (podResources.object()) {
      input_.hasPodResources = true;
      input_.podRequests = parseResourceList(podResources["requests"]);
      input_.podLimits = parseResourceList(podResources["limits"]);
    }
    input_.overhead = parseResourceList(spec["overhead"]);
    containerStatuses(status["containerStatuses"]);
    containerStatuses(status["initContainerStatuses"]);
    conditions(status["conditions"]);
  }

  // status.conditions, in manifest order. PodResizePending also decides which requests
  // count (a resize the kubelet found Infeasible is not counted).
  void conditions(const Cursor& c) {
    std::vector<sh_pod_condition> out;
    c.eachObject([&](const Cursor& item) {
      sh_pod_condition cond{};
      std::string_view type = item["type"].stringOr("");
      std::string_view reason = item["reason"].stringOr("");
      cond.type = arena_.str(type);
      cond.status = arena_.str(item["status"].stringOr(""));
      cond.reason = arena_.str(reason);
      out.push_back(cond);
      if (!seenResizeCondition_ && type == "PodResizePending") {
        seenResizeCondition_ = true;
        input_.resizeInfeasible = reason == "Infeasible";
      }
    });
    v_.conditions = arena_.array(out);
    v_.condition_count = static_cast<uint32_t>(out.size());
  }

  ContainerResources container(const Cursor& c, bool isInit, bool hostNetwork) {
    ContainerResources out;
    out.name = std::string(c["name"].stringOr(""));
    out.restartable = isInit && c["restartPolicy"].stringOr("") == "Always";
    Cursor resources = c["resources"];
    if (resources.object()) {
      out.requests = parseResourceList(resources["requests"]);
      out.limits = parseResourceList(resources["limits"]);
      // SetDefaults_Pod: limits stand in for missing requests.
      for (const auto& e : out.limits) {
        if (!out.requests.contains(e.name)) {
          out.requests.set(e.name, e.milli);
        }
      }
    }
    std::string_view image = c["image"].stringOr("");
    (isInit ? initImages_ : images_).push_back(intern(normalizedImageName(image)));
    bool portsCount = !isInit || out.restartable;
    c["ports"].eachObject([&](const Cursor& port) {
      int32_t hostPort = port["hostPort"].int32().value_or(0);
      int32_t containerPort = port["containerPort"].int32().value_or(0);
      if (hostNetwork && hostPort == 0) {
        hostPort = containerPort;  // SetDefaults_Pod: host networking exposes every port
      }
      Cursor protoC = port["protocol"];
      std::string_view proto = protoC.stringOr("");
      sh_host_port hp{};
      if (proto.empty() || proto == "TCP") {
        hp.protocol = SH_PROTO_TCP;
      } else if (proto == "UDP") {
        hp.protocol = SH_PROTO_UDP;
      } else if (proto == "SCTP") {
        hp.protocol = SH_PROTO_SCTP;
      } else {
        failUnsupported(protoC, proto, "\"TCP\", \"UDP\", \"SCTP\"");
      }
      std::string_view ip = port["hostIP"].stringOr("");
      // Interned, so NodeInfo can keep the entry after this pod is gone.
      hp.host_ip = internStr(ip.empty() ? "0.0.0.0" : ip);
      hp.port = hostPort;
      if (portsCount && hostPort > 0) {
        (isInit ? initHostPorts_ : hostPorts_).push_back(hp);
      }
    });
    return out;
  }

  void containerStatuses(const Cursor& c) {
    c.eachObject([&](const Cursor& item) {
      std::string_view name = item["name"].stringOr("");
      ContainerResources* target = findContainer(name);
      Cursor allocated = item["allocatedResources"];
      Cursor resources = item["resources"];
      std::optional<ResourceList> alloc;
      std::optional<ResourceList> actual;
      if (allocated.object()) {
        alloc = parseResourceList(allocated);
      }
      if (resources.object() && resources["requests"].object()) {
        actual = parseResourceList(resources["requests"]);
      }
      // findContainerStatus: the first status with the name wins.
      if (target != nullptr && statusSeen_.insert(target).second) {
        target->allocated = std::move(alloc);
        target->actuated = std::move(actual);
      }
    });
  }

  ContainerResources* findContainer(std::string_view name) {
    for (auto* list : {&input_.containers, &input_.initContainers}) {
      for (auto& c : *list) {
        if (c.name == name) {
          return &c;
        }
      }
    }
    return nullptr;
  }

  void statusFields(const Cursor& status) {
    v_.nominated_node_name = arena_.str(status["nominatedNodeName"].stringOr(""));
    v_.start_unix_nanos = parseTimeField(status["startTime"]);
    std::string_view phase = status["phase"].stringOr("");
    v_.phase_terminal = phase == "Succeeded" || phase == "Failed" ? 1 : 0;
    if (!ctx_.ok()) {
      return;  // requests of a malformed pod are never used
    }
    applyPodLevelDefaults(input_);
    PodRequestSummary summary = computePodRequests(input_);
    ResourceValues values = toResourceValues(summary.requests, false);
    v_.requests.milli_cpu = values.milliCpu;
    v_.requests.memory = values.memory;
    v_.requests.ephemeral_storage = values.ephemeralStorage;
    v_.requests.scalars = arena_.array(values.scalars);
    v_.requests.scalar_count = static_cast<uint32_t>(values.scalars.size());
    v_.non_zero_milli_cpu = summary.nonZeroMilliCpu;
    v_.non_zero_memory = summary.nonZeroMemory;
  }

  ParseContext& ctx_;
  Pod& pod_;
  Arena& arena_;
  sh_pod& v_;
  PodResourcesInput input_;
  std::set<const ContainerResources*> statusSeen_;
  bool seenResizeCondition_ = false;
  std::vector<sh_id> images_;
  std::vector<sh_id> initImages_;
  std::vector<sh_host_port> hostPorts_;
  std::vector<sh_host_port> initHostPorts_;
};

std::shared_ptr<const Pod> parsePod(const boost::json::value& json, std::string& error,
                                    std::string_view text) {
  return PodParser::run(json, error, text);
}

}  // namespace sh::model
