// The whole of a pod's view as text, every field and every array element followed through its
// pointers, so two views can be compared for equality of content (a copy made without parsing
// against a fresh parse). Interned ids are printed as numbers: within one process the same
// text has the same id. Header-only, for the model and connector tests.
#pragma once

#include <schedhost/plugin.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

namespace sh::model::testing {

namespace detail {

class ViewPrinter {
 public:
  std::string text() const { return out_.str(); }

  void str(std::string_view name, sh_str s) {
    out_ << name << "=\"" << std::string_view(s.ptr == nullptr ? "" : s.ptr, s.len) << "\" ";
  }
  void num(std::string_view name, int64_t n) { out_ << name << "=" << n << " "; }
  void open(std::string_view name, std::size_t count) { out_ << name << "[" << count << "]{ "; }
  void close() { out_ << "} "; }

  void labels(std::string_view name, const sh_label* l, uint32_t n) {
    open(name, n);
    for (uint32_t i = 0; i < n; ++i) {
      num("key", l[i].key);
      num("value", l[i].value);
      str("keyStr", l[i].key_str);
      str("valueStr", l[i].value_str);
    }
    close();
  }
  void ids(std::string_view name, const sh_id* ids, uint32_t n) {
    open(name, n);
    for (uint32_t i = 0; i < n; ++i) {
      num("id", ids[i]);
    }
    close();
  }
  void strs(std::string_view name, const sh_str* s, uint32_t n) {
    open(name, n);
    for (uint32_t i = 0; i < n; ++i) {
      str("s", s[i]);
    }
    close();
  }
  void resources(std::string_view name, const sh_resources& r) {
    open(name, r.scalar_count);
    num("cpu", r.milli_cpu);
    num("memory", r.memory);
    num("ephemeral", r.ephemeral_storage);
    num("pods", r.allowed_pod_number);
    for (uint32_t i = 0; i < r.scalar_count; ++i) {
      num("name", r.scalars[i].name);
      num("value", r.scalars[i].value);
    }
    close();
  }
  void requirements(std::string_view name, const sh_requirement* r, uint32_t n) {
    open(name, n);
    for (uint32_t i = 0; i < n; ++i) {
      num("key", r[i].key);
      num("op", r[i].op);
      num("numberOk", r[i].number_ok);
      num("number", r[i].number);
      ids("values", r[i].values, r[i].value_count);
    }
    close();
  }
  void term(const sh_node_selector_term& t) {
    requirements("matchExpressions", t.match_expressions, t.match_expression_count);
    requirements("matchFields", t.match_fields, t.match_field_count);
  }
  void nodeAffinity(const sh_node_affinity* a) {
    open("nodeAffinity", a == nullptr ? 0 : 1);
    if (a != nullptr) {
      num("hasRequired", a->has_required);
      open("required", a->required_count);
      for (uint32_t i = 0; i < a->required_count; ++i) {
        term(a->required[i]);
      }
      close();
      open("preferred", a->preferred_count);
      for (uint32_t i = 0; i < a->preferred_count; ++i) {
        num("weight", a->preferred[i].weight);
        term(a->preferred[i].preference);
      }
      close();
    }
    close();
  }
  void selector(std::string_view name, const sh_label_selector* s) {
    open(name, s == nullptr ? 0 : 1);
    if (s != nullptr) {
      labels("matchLabels", s->match_labels, s->match_label_count);
      requirements("matchExpressions", s->match_expressions, s->match_expression_count);
    }
    close();
  }
  void affinityTerm(const sh_pod_affinity_term& t) {
    selector("labelSelector", t.label_selector);
    selector("namespaceSelector", t.namespace_selector);
    strs("namespaces", t.namespaces, t.namespace_count);
    num("topologyKey", t.topology_key);
    strs("matchLabelKeys", t.match_label_keys, t.match_label_key_count);
    strs("mismatchLabelKeys", t.mismatch_label_keys, t.mismatch_label_key_count);
  }
  void podAffinity(std::string_view name, const sh_pod_affinity* a) {
    open(name, a == nullptr ? 0 : 1);
    if (a != nullptr) {
      open("required", a->required_count);
      for (uint32_t i = 0; i < a->required_count; ++i) {
        affinityTerm(a->required[i]);
      }
      close();
      open("preferred", a->preferred_count);
      for (uint32_t i = 0; i < a->preferred_count; ++i) {
        num("weight", a->preferred[i].weight);
        affinityTerm(a->preferred[i].term);
      }
      close();
    }
    close();
  }

 private:
  std::ostringstream out_;
};

}  // namespace detail

inline std::string podViewText(const sh_pod& v) {
  detail::ViewPrinter p;
  p.num("structSize", v.struct_size);
  p.str("uid", v.uid);
  p.str("name", v.name);
  p.str("namespace", v.namespace_);
  p.str("nodeName", v.node_name);
  p.str("schedulerName", v.scheduler_name);
  p.str("nominatedNodeName", v.nominated_node_name);
  p.num("priority", v.priority);
  p.num("preemptionPolicy", v.preemption_policy);
  p.num("creation", v.creation_unix_nanos);
  p.num("start", v.start_unix_nanos);
  p.num("deleting", v.deleting);
  p.num("phaseTerminal", v.phase_terminal);
  p.labels("labels", v.labels, v.label_count);
  p.open("tolerations", v.toleration_count);
  for (uint32_t i = 0; i < v.toleration_count; ++i) {
    const sh_toleration& t = v.tolerations[i];
    p.num("key", t.key);
    p.num("value", t.value);
    p.num("op", t.op);
    p.num("effect", t.effect);
    p.num("seconds", t.toleration_seconds);
  }
  p.close();
  p.resources("requests", v.requests);
  p.num("nonZeroCpu", v.non_zero_milli_cpu);
  p.num("nonZeroMemory", v.non_zero_memory);
  p.open("hostPorts", v.host_port_count);
  for (uint32_t i = 0; i < v.host_port_count; ++i) {
    p.str("ip", v.host_ports[i].host_ip);
    p.num("protocol", v.host_ports[i].protocol);
    p.num("port", v.host_ports[i].port);
  }
  p.close();
  p.labels("nodeSelector", v.node_selector, v.node_selector_count);
  p.nodeAffinity(v.node_affinity);
  p.podAffinity("podAffinity", v.pod_affinity);
  p.podAffinity("podAntiAffinity", v.pod_anti_affinity);
  p.strs("schedulingGates", v.scheduling_gates, v.scheduling_gate_count);
  p.ids("images", v.images, v.image_count);
  p.num("containers", v.container_count);
  p.open("topologySpread", v.topology_spread_constraint_count);
  for (uint32_t i = 0; i < v.topology_spread_constraint_count; ++i) {
    const sh_topology_spread_constraint& c = v.topology_spread_constraints[i];
    p.num("maxSkew", c.max_skew);
    p.num("whenUnsatisfiable", c.when_unsatisfiable);
    p.num("topologyKey", c.topology_key);
    p.num("minDomains", c.min_domains);
    p.selector("labelSelector", c.label_selector);
    p.num("nodeAffinityPolicy", c.node_affinity_policy);
    p.num("nodeTaintsPolicy", c.node_taints_policy);
    p.strs("matchLabelKeys", c.match_label_keys, c.match_label_key_count);
  }
  p.close();
  p.open("ownerRefs", v.owner_ref_count);
  for (uint32_t i = 0; i < v.owner_ref_count; ++i) {
    const sh_owner_ref& r = v.owner_refs[i];
    p.str("apiVersion", r.api_version);
    p.str("kind", r.kind);
    p.str("name", r.name);
    p.str("uid", r.uid);
    p.num("controller", r.controller);
  }
  p.close();
  p.open("conditions", v.condition_count);
  for (uint32_t i = 0; i < v.condition_count; ++i) {
    p.str("type", v.conditions[i].type);
    p.str("status", v.conditions[i].status);
    p.str("reason", v.conditions[i].reason);
  }
  p.close();
  return p.text();
}

}  // namespace sh::model::testing
