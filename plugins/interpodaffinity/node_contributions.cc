// What one node contributes to InterPodAffinity's counts. Upstream: interpodaffinity/
// filtering.go (getExistingAntiAffinityCounts, getIncomingAffinityAntiAffinityCounts) and
// scoring.go (processExistingPod).
#include "node_contributions.h"

namespace schedhost::plugins::interpodaffinity {

namespace {

// Adds `value` to the pair (key, the node's value of key) when the node has the label.
void addPair(PairSink& sink, uint32_t channel, const sh_node& node, sh_id key, int64_t value) {
  const sh_label* label = findLabel(node, key);
  if (label != nullptr) {
    sink.add(channel, topologyPair(key, label->value), value);
  }
}

bool namespaceSelectorFree(const sh_pod_affinity_term& t) noexcept {
  const sh_label_selector* s = t.namespace_selector;
  return s == nullptr || (s->match_label_count == 0 && s->match_expression_count == 0);
}

void appendU64(std::string& key, uint64_t v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void appendString(std::string& key, std::string_view s) {
  appendU64(key, s.size());
  key.append(s);
}

void appendLabels(std::string& key, const sh_label* labels, uint32_t count) {
  appendU64(key, count);
  for (uint32_t i = 0; i < count; ++i) {
    appendU64(key, (static_cast<uint64_t>(labels[i].key) << 32) | canonicalId(labels[i].value));
  }
}

void appendSelector(std::string& key, const sh_label_selector* s) {
  if (s == nullptr) {
    appendU64(key, 0);
    return;
  }
  appendU64(key, 1);
  appendLabels(key, s->match_labels, s->match_label_count);
  appendU64(key, s->match_expression_count);
  for (uint32_t i = 0; i < s->match_expression_count; ++i) {
    const sh_requirement& r = s->match_expressions[i];
    appendU64(key, (static_cast<uint64_t>(r.key) << 32) | static_cast<uint32_t>(r.op));
    appendU64(key, (static_cast<uint64_t>(r.value_count) << 1) | (r.number_ok != 0 ? 1 : 0));
    appendU64(key, static_cast<uint64_t>(r.number));
    for (uint32_t j = 0; j < r.value_count; ++j) {
      appendU64(key, canonicalId(r.values[j]));
    }
  }
}

void appendTerm(std::string& key, const sh_pod_affinity_term& t) {
  appendSelector(key, t.label_selector);
  appendSelector(key, t.namespace_selector);
  appendU64(key, t.namespace_count);
  for (uint32_t i = 0; i < t.namespace_count; ++i) {
    appendString(key, view(t.namespaces[i]));
  }
  appendU64(key, canonicalId(t.topology_key));
}

void appendTerms(std::string& key, Terms terms) {
  appendU64(key, terms.size);
  for (const sh_pod_affinity_term& t : terms) {
    appendTerm(key, t);
  }
}

void appendTerms(std::string& key, WeightedTerms terms) {
  appendU64(key, terms.size);
  for (const sh_weighted_pod_affinity_term& w : terms) {
    appendU64(key, static_cast<uint32_t>(w.weight));
    appendTerm(key, w.term);
  }
}

void appendIncomingPod(std::string& key, const IncomingPod& in) {
  appendString(key, in.ns);
  appendLabels(key, in.pod->labels, in.pod->label_count);
  appendU64(key, in.nsLabels.labels == nullptr ? 0 : 1);
  appendLabels(key, in.nsLabels.labels, in.nsLabels.count);
}

}  // namespace

bool cacheable(Terms terms) noexcept {
  for (const sh_pod_affinity_term& t : terms) {
    if (!namespaceSelectorFree(t)) {
      return false;
    }
  }
  return true;
}

bool cacheable(WeightedTerms terms) noexcept {
  for (const sh_weighted_pod_affinity_term& w : terms) {
    if (!namespaceSelectorFree(w.term)) {
      return false;
    }
  }
  return true;
}

void collectExistingAntiAffinity(const sh_node_info& ni, const IncomingPod& in, PairSink& sink) {
  for (uint32_t j = 0; j < ni.pods_with_required_anti_affinity_count; ++j) {
    const sh_pod& existing = *ni.pods_with_required_anti_affinity[j];
    const std::string_view existingNs = view(existing.namespace_);
    for (const sh_pod_affinity_term& t : existingRequiredAntiAffinityTerms(existing)) {
      if (termMatches(t, existingNs, *in.pod, in.nsLabels)) {
        addPair(sink, 0, *ni.node, t.topology_key, 1);
      }
    }
  }
}

std::string existingAntiAffinityKey(const IncomingPod& in) {
  std::string key = "existing-anti-affinity";
  appendIncomingPod(key, in);
  return key;
}

void collectIncomingTerms(const sh_node_info& ni, const IncomingTerms& terms,
                          NamespaceLabels& namespaces, PairSink& sink) {
  for (uint32_t j = 0; j < ni.pod_count; ++j) {
    const sh_pod& existing = *ni.pods[j];
    if (podMatchesAllIncomingTerms(terms.affinity, terms.ns, existing, namespaces)) {
      for (const sh_pod_affinity_term& t : terms.affinity) {
        addPair(sink, 0, *ni.node, t.topology_key, 1);
      }
    }
    for (const sh_pod_affinity_term& t : terms.antiAffinity) {
      if (incomingTermMatches(t, terms.ns, existing, namespaces)) {
        addPair(sink, 1, *ni.node, t.topology_key, 1);
      }
    }
  }
}

std::string incomingTermsKey(const IncomingTerms& terms) {
  std::string key = "incoming-terms";
  appendString(key, terms.ns);
  appendTerms(key, terms.affinity);
  appendTerms(key, terms.antiAffinity);
  return key;
}

void collectScores(const sh_node_info& ni, const ScoreQuery& q, NamespaceLabels& namespaces,
                   PairSink& sink) {
  const sh_node& node = *ni.node;
  if (node.label_count == 0) {
    return;
  }
  // Without preferred terms of its own, only pods with affinity can affect the pod.
  const sh_pod* const* pods = q.hasConstraints ? ni.pods : ni.pods_with_affinity;
  const uint32_t podCount = q.hasConstraints ? ni.pod_count : ni.pods_with_affinity_count;
  const sh_pod& pod = *q.in.pod;
  for (uint32_t j = 0; j < podCount; ++j) {
    const sh_pod& existing = *pods[j];
    // The incoming pod's preferred terms matched by the existing pod.
    for (const sh_weighted_pod_affinity_term& w : q.preferredAffinity) {
      if (incomingTermMatches(w.term, q.in.ns, existing, namespaces)) {
        addPair(sink, 0, node, w.term.topology_key, w.weight);
      }
    }
    for (const sh_weighted_pod_affinity_term& w : q.preferredAntiAffinity) {
      if (incomingTermMatches(w.term, q.in.ns, existing, namespaces)) {
        addPair(sink, 0, node, w.term.topology_key, -static_cast<int64_t>(w.weight));
      }
    }
    // The existing pod's terms matched by the incoming pod.
    const std::string_view existingNs = view(existing.namespace_);
    if (q.hardPodAffinityWeight > 0) {
      for (const sh_pod_affinity_term& t : existingRequiredAffinityTerms(existing)) {
        if (termMatches(t, existingNs, pod, q.in.nsLabels)) {
          addPair(sink, 0, node, t.topology_key, q.hardPodAffinityWeight);
        }
      }
    }
    for (const sh_weighted_pod_affinity_term& w : existingPreferredAffinityTerms(existing)) {
      if (termMatches(w.term, existingNs, pod, q.in.nsLabels)) {
        addPair(sink, 0, node, w.term.topology_key, w.weight);
      }
    }
    for (const sh_weighted_pod_affinity_term& w : existingPreferredAntiAffinityTerms(existing)) {
      if (termMatches(w.term, existingNs, pod, q.in.nsLabels)) {
        addPair(sink, 0, node, w.term.topology_key, -static_cast<int64_t>(w.weight));
      }
    }
  }
}

std::string scoresKey(const ScoreQuery& q) {
  std::string key = "scores";
  appendIncomingPod(key, q.in);
  appendU64(key, q.hasConstraints ? 1 : 0);
  appendU64(key, static_cast<uint64_t>(q.hardPodAffinityWeight));
  appendTerms(key, q.preferredAffinity);
  appendTerms(key, q.preferredAntiAffinity);
  return key;
}

}  // namespace schedhost::plugins::interpodaffinity
