// Label requirements, node selectors and label selectors, with the semantics of
// k8s.io/apimachinery/pkg/labels and component-helpers' nodeaffinity.
//
//   requirementValid, matchRequirement        labels.Requirement
//   matchNodeSelectorTerm(s)                  nodeaffinity.NodeSelector
//   matchNodeSelectorMap                      spec.nodeSelector
//   matchRequiredNodeAffinity                 nodeaffinity.RequiredNodeAffinity
//   preferredTermCounts, scorePreferredTerms  nodeaffinity.PreferredSchedulingTerms
//   matchLabelSelector                        metav1.LabelSelector
#ifndef SCHEDHOST_HELPERS_SELECTORS_HPP
#define SCHEDHOST_HELPERS_SELECTORS_HPP

#include <schedhost/plugin.h>
#include <schedhost/helpers/labels.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>

namespace schedhost {

// Whether labels.NewRequirement accepts the requirement's operator and values: In and NotIn
// need values, Exists and DoesNotExist none, Gt and Lt exactly one integer. (Key and value
// syntax is checked where the objects are admitted.)
inline bool requirementValid(const sh_requirement& r) noexcept {
  switch (r.op) {
    case SH_OP_IN:
    case SH_OP_NOT_IN:
      return r.value_count > 0;
    case SH_OP_EXISTS:
    case SH_OP_DOES_NOT_EXIST:
      return r.value_count == 0;
    case SH_OP_GT:
    case SH_OP_LT:
      return r.value_count == 1 && r.number_ok != 0;
    default:
      return false;
  }
}

// labels.Requirement.Matches for a valid requirement against labels sorted by key id.
inline bool matchRequirement(const sh_requirement& r, const sh_label* labels,
                             uint32_t count) noexcept {
  const sh_label* label = findLabel(labels, count, r.key);
  switch (r.op) {
    case SH_OP_IN:
      return label != nullptr && containsId(r.values, r.value_count, label->value);
    case SH_OP_NOT_IN:
      return label == nullptr || !containsId(r.values, r.value_count, label->value);
    case SH_OP_EXISTS:
      return label != nullptr;
    case SH_OP_DOES_NOT_EXIST:
      return label == nullptr;
    case SH_OP_GT:
    case SH_OP_LT: {
      int64_t value = 0;
      if (label == nullptr || r.number_ok == 0 || !parseInt64(view(label->value_str), value)) {
        return false;
      }
      return r.op == SH_OP_GT ? value > r.number : value < r.number;
    }
    default:
      return false;
  }
}

// A field requirement is valid when it is In or NotIn with exactly one value.
inline bool fieldRequirementValid(const sh_requirement& r) noexcept {
  return (r.op == SH_OP_IN || r.op == SH_OP_NOT_IN) && r.value_count == 1;
}

inline bool termEmpty(const sh_node_selector_term& term) noexcept {
  return term.match_expression_count == 0 && term.match_field_count == 0;
}

// Whether every requirement of the term parses (nodeaffinity's newNodeSelectorTerm).
inline bool termValid(const sh_node_selector_term& term) noexcept {
  for (uint32_t i = 0; i < term.match_expression_count; ++i) {
    if (!requirementValid(term.match_expressions[i])) {
      return false;
    }
  }
  for (uint32_t i = 0; i < term.match_field_count; ++i) {
    if (!fieldRequirementValid(term.match_fields[i])) {
      return false;
    }
  }
  return true;
}

// One NodeSelectorTerm against a node: expressions on labels and fields ANDed. An empty or
// unparsable term matches nothing. Fields are only checked when the node has a name; the only
// field is "metadata.name", whose interned id the caller passes (any other key reads as "").
inline bool matchNodeSelectorTerm(const sh_node_selector_term& term, const sh_node& node,
                                  sh_id metadataNameKey) noexcept {
  if (termEmpty(term) || !termValid(term)) {
    return false;
  }
  for (uint32_t i = 0; i < term.match_expression_count; ++i) {
    if (!matchRequirement(term.match_expressions[i], node.labels, node.label_count)) {
      return false;
    }
  }
  if (node.name.len == 0) {
    return true;
  }
  for (uint32_t i = 0; i < term.match_field_count; ++i) {
    const sh_requirement& f = term.match_fields[i];
    sh_id field = f.key == metadataNameKey ? node.name_id : SH_ID_NONE;
    bool equal = sameId(field, f.values[0]);
    if (equal != (f.op == SH_OP_IN)) {
      return false;
    }
  }
  return true;
}

// nodeaffinity.NodeSelector: terms ORed; empty terms are dropped, so a selector with no
// non-empty term matches no node.
inline bool matchNodeSelectorTerms(const sh_node_selector_term* terms, uint32_t count,
                                   const sh_node& node, sh_id metadataNameKey) noexcept {
  for (uint32_t i = 0; i < count; ++i) {
    if (matchNodeSelectorTerm(terms[i], node, metadataNameKey)) {
      return true;
    }
  }
  return false;
}

// spec.nodeSelector: every entry must be a node label with the same value.
inline bool matchNodeSelectorMap(const sh_label* selector, uint32_t count,
                                 const sh_node& node) noexcept {
  for (uint32_t i = 0; i < count; ++i) {
    const sh_label* label = findLabel(node, selector[i].key);
    if (label == nullptr || !sameId(label->value, selector[i].value)) {
      return false;
    }
  }
  return true;
}

// nodeaffinity.RequiredNodeAffinity: spec.nodeSelector AND the required node affinity terms.
inline bool matchRequiredNodeAffinity(const sh_pod& pod, const sh_node& node,
                                      sh_id metadataNameKey) noexcept {
  if (!matchNodeSelectorMap(pod.node_selector, pod.node_selector_count, node)) {
    return false;
  }
  const sh_node_affinity* affinity = pod.node_affinity;
  if (affinity == nullptr || affinity->has_required == 0) {
    return true;
  }
  return matchNodeSelectorTerms(affinity->required, affinity->required_count, node,
                                metadataNameKey);
}

// Whether a preferred term takes part in scoring (nodeaffinity.NewPreferredSchedulingTerms
// drops weight-0 and empty terms).
inline bool preferredTermCounts(const sh_preferred_term& t) noexcept {
  return t.weight != 0 && !termEmpty(t.preference);
}

// nodeaffinity.PreferredSchedulingTerms.Score: the sum of the weights of matching terms.
inline int64_t scorePreferredTerms(const sh_preferred_term* terms, uint32_t count,
                                   const sh_node& node, sh_id metadataNameKey) noexcept {
  int64_t score = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (preferredTermCounts(terms[i]) &&
        matchNodeSelectorTerm(terms[i].preference, node, metadataNameKey)) {
      score += terms[i].weight;
    }
  }
  return score;
}

// metav1.LabelSelector against labels: NULL matches nothing, an empty selector everything.
// Gt and Lt are not label-selector operators and make the selector match nothing.
inline bool matchLabelSelector(const sh_label_selector* selector, const sh_label* labels,
                               uint32_t count) noexcept {
  if (selector == nullptr) {
    return false;
  }
  for (uint32_t i = 0; i < selector->match_label_count; ++i) {
    const sh_label& want = selector->match_labels[i];
    const sh_label* label = findLabel(labels, count, want.key);
    if (label == nullptr || !sameId(label->value, want.value)) {
      return false;
    }
  }
  for (uint32_t i = 0; i < selector->match_expression_count; ++i) {
    const sh_requirement& r = selector->match_expressions[i];
    if (r.op == SH_OP_GT || r.op == SH_OP_LT || !requirementValid(r) ||
        !matchRequirement(r, labels, count)) {
      return false;
    }
  }
  return true;
}

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_SELECTORS_HPP
