// parse_pod: v1.Pod JSON -> Pod. Reads the fields kube-scheduler uses, applies the API-server
// defaulting a raw manifest has not been through (namespace, schedulerName, requests from
// limits, pod-level requests, hostNetwork host ports) and computes the effective requests.
#include <boost/json/serialize.hpp>
#include <exception>
#include <set>

#include "host/model/field_parsers.h"
#include "host/model/image_states.h"
#include "host/model/interner.h"
#include "host/model/pod.h"
#include "host/model/pod_requests.h"
#include "host/model/selector_parser.h"

namespace sh::model {

class PodParser {
 public:
  static std::shared_ptr<const Pod> run(const boost::json::value& json, std::string& error) {
    try {
      auto pod = std::make_shared<Pod>(Pod::Key{});
      ParseContext ctx;
      PodParser(ctx, *pod).parse(Cursor(ctx, &json));
      if (!ctx.ok()) {
        error = ctx.message();
        return nullptr;
      }
      pod->json_ = boost::json::serialize(json);
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
    status_fields(status);
  }

  void metadata(const Cursor& m) {
    v_.name = arena_.str(m["name"].required_string());
    std::string_view ns = m["namespace"].string_or("");
    v_.namespace_ = arena_.str(ns.empty() ? "default" : ns);
    v_.uid = arena_.str(m["uid"].string_or(""));
    std::vector<sh_label> labels = parse_string_map(m["labels"]);
    v_.labels = arena_.array(labels);
    v_.label_count = static_cast<uint32_t>(labels.size());
    v_.creation_unix_nanos = parse_time_field(m["creationTimestamp"]);
    Cursor deletion = m["deletionTimestamp"];
    parse_time_field(deletion);
    v_.deleting = deletion.present() ? 1 : 0;
    owner_refs(m["ownerReferences"]);
  }

  void owner_refs(const Cursor& c) {
    std::vector<sh_owner_ref> refs;
    c.each_object([&](const Cursor& item) {
      sh_owner_ref r{};
      r.api_version = arena_.str(item["apiVersion"].string_or(""));
      r.kind = arena_.str(item["kind"].string_or(""));
      r.name = arena_.str(item["name"].string_or(""));
      r.uid = arena_.str(item["uid"].string_or(""));
      r.controller = item["controller"].boolean().value_or(false) ? 1 : 0;
      refs.push_back(r);
    });
    v_.owner_refs = arena_.array(refs);
    v_.owner_ref_count = static_cast<uint32_t>(refs.size());
  }

  void scheduling(const Cursor& spec) {
    v_.node_name = arena_.str(spec["nodeName"].string_or(""));
    std::string_view scheduler = spec["schedulerName"].string_or("");
    v_.scheduler_name = arena_.str(scheduler.empty() ? "default-scheduler" : scheduler);
    if (std::optional<int32_t> prio = spec["priority"].int32()) {
      v_.priority = *prio;
      pod_.has_priority_ = true;
    }
    pod_.priority_class_name_ = arena_.str(spec["priorityClassName"].string_or(""));
    Cursor policy = spec["preemptionPolicy"];
    std::string_view p = policy.string_or("");
    if (p == "Never") {
      v_.preemption_policy = SH_PREEMPT_NEVER;
    } else if (p.empty() || p == "PreemptLowerPriority") {
      v_.preemption_policy = SH_PREEMPT_LOWER_PRIORITY;
    } else {
      fail_unsupported(policy, p, "\"PreemptLowerPriority\", \"Never\"");
    }
    std::vector<sh_label> selector = parse_string_map(spec["nodeSelector"]);
    v_.node_selector = arena_.array(selector);
    v_.node_selector_count = static_cast<uint32_t>(selector.size());
    tolerations(spec["tolerations"]);
    Cursor affinity = spec["affinity"];
    if (affinity.object()) {
      v_.node_affinity = parse_node_affinity(affinity["nodeAffinity"], arena_);
      v_.pod_affinity = parse_pod_affinity(affinity["podAffinity"], arena_);
      v_.pod_anti_affinity = parse_pod_affinity(affinity["podAntiAffinity"], arena_);
    }
    std::vector<sh_str> gates;
    spec["schedulingGates"].each_object(
        [&](const Cursor& item) { gates.push_back(arena_.str(item["name"].required_string())); });
    v_.scheduling_gates = arena_.array(gates);
    v_.scheduling_gate_count = static_cast<uint32_t>(gates.size());
    spread_constraints(spec["topologySpreadConstraints"]);
  }

  void tolerations(const Cursor& c) {
    std::vector<sh_toleration> out;
    c.each_object([&](const Cursor& item) {
      sh_toleration t{};
      std::string_view key = item["key"].string_or("");
      t.key = key.empty() ? SH_ID_NONE : intern(key);
      t.value = intern(item["value"].string_or(""));
      std::string_view op = item["operator"].string_or("");
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
      t.effect = parse_taint_effect(item["effect"], true);
      t.toleration_seconds = item["tolerationSeconds"].integer().value_or(-1);
      out.push_back(t);
    });
    v_.tolerations = arena_.array(out);
    v_.toleration_count = static_cast<uint32_t>(out.size());
  }

  void spread_constraints(const Cursor& c) {
    std::vector<sh_topology_spread_constraint> out;
    c.each_object([&](const Cursor& item) {
      sh_topology_spread_constraint t{};
      t.max_skew = item["maxSkew"].int32().value_or(0);
      t.topology_key = intern(item["topologyKey"].required_string());
      Cursor when = item["whenUnsatisfiable"];
      std::string_view w = when.required_string();
      if (w == "DoNotSchedule") {
        t.when_unsatisfiable = SH_DO_NOT_SCHEDULE;
      } else if (w == "ScheduleAnyway") {
        t.when_unsatisfiable = SH_SCHEDULE_ANYWAY;
      } else if (!w.empty()) {
        fail_unsupported(when, w, "\"DoNotSchedule\", \"ScheduleAnyway\"");
      }
      t.min_domains = item["minDomains"].int32().value_or(0);
      t.label_selector = parse_label_selector(item["labelSelector"], arena_);
      t.node_affinity_policy = inclusion_policy(item["nodeAffinityPolicy"]);
      t.node_taints_policy = inclusion_policy(item["nodeTaintsPolicy"]);
      std::vector<sh_str> keys = parse_string_list(item["matchLabelKeys"], arena_);
      t.match_label_keys = arena_.array(keys);
      t.match_label_key_count = static_cast<uint32_t>(keys.size());
      out.push_back(t);
    });
    v_.topology_spread_constraints = arena_.array(out);
    v_.topology_spread_constraint_count = static_cast<uint32_t>(out.size());
  }

  static int32_t inclusion_policy(const Cursor& c) {
    std::string_view p = c.string_or("");
    if (p.empty()) {
      return SH_POLICY_UNSET;
    }
    if (p == "Honor") {
      return SH_POLICY_HONOR;
    }
    if (p == "Ignore") {
      return SH_POLICY_IGNORE;
    }
    fail_unsupported(c, p, "\"Honor\", \"Ignore\"");
    return SH_POLICY_UNSET;
  }

  // Containers, init containers and image volumes: requests, host ports and images.
  void containers(const Cursor& spec, const Cursor& status) {
    bool host_network = spec["hostNetwork"].boolean().value_or(false);
    Cursor init = spec["initContainers"];
    Cursor regular = spec["containers"];
    init.each_object([&](const Cursor& item) {
      input_.init_containers.push_back(container(item, true, host_network));
    });
    regular.each_object([&](const Cursor& item) {
      input_.containers.push_back(container(item, false, host_network));
    });
    v_.container_count = static_cast<uint32_t>(init.size() + regular.size());
    // ImageLocality order: init containers, containers, then image volumes.
    std::vector<sh_id> images = std::move(init_images_);
    images.insert(images.end(), images_.begin(), images_.end());
    spec["volumes"].each_object([&](const Cursor& item) {
      Cursor image = item["image"];
      if (image.object()) {
        images.push_back(intern(normalized_image_name(image["reference"].string_or(""))));
      }
    });
    v_.images = arena_.array(images);
    v_.image_count = static_cast<uint32_t>(images.size());
    // NodePorts order: containers, then restartable init containers.
    host_ports_.insert(host_ports_.end(), init_host_ports_.begin(), init_host_ports_.end());
    v_.host_ports = arena_.array(host_ports_);
    v_.host_port_count = static_cast<uint32_t>(host_ports_.size());

    Cursor pod_resources = spec["resources"];
    if (pod_resources.object()) {
      input_.has_pod_resources = true;
      input_.pod_requests = parse_resource_list(pod_resources["requests"]);
      input_.pod_limits = parse_resource_list(pod_resources["limits"]);
    }
    input_.overhead = parse_resource_list(spec["overhead"]);
    container_statuses(status["containerStatuses"]);
    container_statuses(status["initContainerStatuses"]);
    conditions(status["conditions"]);
  }

  // status.conditions, in manifest order. PodResizePending also decides which requests
  // count (a resize the kubelet found Infeasible is not counted).
  void conditions(const Cursor& c) {
    std::vector<sh_pod_condition> out;
    c.each_object([&](const Cursor& item) {
      sh_pod_condition cond{};
      std::string_view type = item["type"].string_or("");
      std::string_view reason = item["reason"].string_or("");
      cond.type = arena_.str(type);
      cond.status = arena_.str(item["status"].string_or(""));
      cond.reason = arena_.str(reason);
      out.push_back(cond);
      if (!seen_resize_condition_ && type == "PodResizePending") {
        seen_resize_condition_ = true;
        input_.resize_infeasible = reason == "Infeasible";
      }
    });
    v_.conditions = arena_.array(out);
    v_.condition_count = static_cast<uint32_t>(out.size());
  }

  ContainerResources container(const Cursor& c, bool is_init, bool host_network) {
    ContainerResources out;
    out.name = std::string(c["name"].string_or(""));
    out.restartable = is_init && c["restartPolicy"].string_or("") == "Always";
    Cursor resources = c["resources"];
    if (resources.object()) {
      out.requests = parse_resource_list(resources["requests"]);
      out.limits = parse_resource_list(resources["limits"]);
      // SetDefaults_Pod: limits stand in for missing requests.
      for (const auto& e : out.limits) {
        if (!out.requests.contains(e.name)) {
          out.requests.set(e.name, e.milli);
        }
      }
    }
    std::string_view image = c["image"].string_or("");
    (is_init ? init_images_ : images_).push_back(intern(normalized_image_name(image)));
    bool ports_count = !is_init || out.restartable;
    c["ports"].each_object([&](const Cursor& port) {
      int32_t host_port = port["hostPort"].int32().value_or(0);
      int32_t container_port = port["containerPort"].int32().value_or(0);
      if (host_network && host_port == 0) {
        host_port = container_port;  // SetDefaults_Pod: host networking exposes every port
      }
      Cursor proto_c = port["protocol"];
      std::string_view proto = proto_c.string_or("");
      sh_host_port hp{};
      if (proto.empty() || proto == "TCP") {
        hp.protocol = SH_PROTO_TCP;
      } else if (proto == "UDP") {
        hp.protocol = SH_PROTO_UDP;
      } else if (proto == "SCTP") {
        hp.protocol = SH_PROTO_SCTP;
      } else {
        fail_unsupported(proto_c, proto, "\"TCP\", \"UDP\", \"SCTP\"");
      }
      std::string_view ip = port["hostIP"].string_or("");
      // Interned, so NodeInfo can keep the entry after this pod is gone.
      hp.host_ip = intern_str(ip.empty() ? "0.0.0.0" : ip);
      hp.port = host_port;
      if (ports_count && host_port > 0) {
        (is_init ? init_host_ports_ : host_ports_).push_back(hp);
      }
    });
    return out;
  }

  void container_statuses(const Cursor& c) {
    c.each_object([&](const Cursor& item) {
      std::string_view name = item["name"].string_or("");
      ContainerResources* target = find_container(name);
      Cursor allocated = item["allocatedResources"];
      Cursor resources = item["resources"];
      std::optional<ResourceList> alloc;
      std::optional<ResourceList> actual;
      if (allocated.object()) {
        alloc = parse_resource_list(allocated);
      }
      if (resources.object() && resources["requests"].object()) {
        actual = parse_resource_list(resources["requests"]);
      }
      // findContainerStatus: the first status with the name wins.
      if (target != nullptr && status_seen_.insert(target).second) {
        target->allocated = std::move(alloc);
        target->actuated = std::move(actual);
      }
    });
  }

  ContainerResources* find_container(std::string_view name) {
    for (auto* list : {&input_.containers, &input_.init_containers}) {
      for (auto& c : *list) {
        if (c.name == name) {
          return &c;
        }
      }
    }
    return nullptr;
  }

  void status_fields(const Cursor& status) {
    v_.nominated_node_name = arena_.str(status["nominatedNodeName"].string_or(""));
    v_.start_unix_nanos = parse_time_field(status["startTime"]);
    std::string_view phase = status["phase"].string_or("");
    v_.phase_terminal = phase == "Succeeded" || phase == "Failed" ? 1 : 0;
    if (!ctx_.ok()) {
      return;  // requests of a malformed pod are never used
    }
    apply_pod_level_defaults(input_);
    PodRequestSummary summary = compute_pod_requests(input_);
    ResourceValues values = to_resource_values(summary.requests, false);
    v_.requests.milli_cpu = values.milli_cpu;
    v_.requests.memory = values.memory;
    v_.requests.ephemeral_storage = values.ephemeral_storage;
    v_.requests.scalars = arena_.array(values.scalars);
    v_.requests.scalar_count = static_cast<uint32_t>(values.scalars.size());
    v_.non_zero_milli_cpu = summary.non_zero_milli_cpu;
    v_.non_zero_memory = summary.non_zero_memory;
  }

  ParseContext& ctx_;
  Pod& pod_;
  Arena& arena_;
  sh_pod& v_;
  PodResourcesInput input_;
  std::set<const ContainerResources*> status_seen_;
  bool seen_resize_condition_ = false;
  std::vector<sh_id> images_;
  std::vector<sh_id> init_images_;
  std::vector<sh_host_port> host_ports_;
  std::vector<sh_host_port> init_host_ports_;
};

std::shared_ptr<const Pod> parse_pod(const boost::json::value& json, std::string& error) {
  return PodParser::run(json, error);
}

}  // namespace sh::model
