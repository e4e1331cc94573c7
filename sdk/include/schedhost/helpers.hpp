// schedhost C++ SDK helpers: the matching rules every scheduling plugin needs, with
// kube-scheduler's semantics, written against the data views of plugin.h.
//
//   labels          findLabel, parseInt64 (Go strconv.ParseInt, base 10)
//   selectors       matchRequirement (labels.Requirement), matchNodeSelectorTerm,
//                   matchNodeSelectorTerms (nodeaffinity.NodeSelector), matchNodeSelectorMap
//                   (spec.nodeSelector), matchRequiredNodeAffinity
//                   (nodeaffinity.RequiredNodeAffinity), scorePreferredTerms,
//                   matchLabelSelector (metav1.LabelSelector)
//   tolerations     toleratesTaint (v1.Toleration.ToleratesTaint), tolerationsTolerateTaint,
//                   findUntoleratedTaint (v1helper.FindMatchingUntoleratedTaint)
//   resources       scalarValue, resourceValue, isExtendedResourceName, isScalarResourceName,
//                   podResourceRequest and resourceAllocation (noderesources'
//                   resourceAllocationScorer)
//   scores          defaultNormalizeScore (helper.DefaultNormalizeScore)
//   args            field-error wording (invalidValue, requiredValue, ...), qualifiedNameErrors
//                   (validation.IsQualifiedName), args-tree checks (expectObject,
//                   rejectUnknownFields, errorAt)
//   across cycles   NodeStamp, NodeScan and NodeRecords (per-node results recomputed only
//                   where a node changed), IdMap (counts that are cheap to copy)
//
// Everything a Filter or Score calls is noexcept and allocation-free. Header-only, C++17.
#ifndef SCHEDHOST_HELPERS_HPP
#define SCHEDHOST_HELPERS_HPP

#include <schedhost/plugin.h>
#include <schedhost/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace schedhost {

// ---------------------------------------------------------------------------
// Ids and labels
// ---------------------------------------------------------------------------

// The empty string may reach a plugin as SH_ID_NONE or as SH_ID_EMPTY; compare through this.
constexpr sh_id canonicalId(sh_id id) noexcept { return id == SH_ID_EMPTY ? SH_ID_NONE : id; }
constexpr bool sameId(sh_id a, sh_id b) noexcept { return canonicalId(a) == canonicalId(b); }

// The label with `key` in an array sorted by key id, or nullptr.
inline const sh_label* findLabel(const sh_label* labels, uint32_t count, sh_id key) noexcept {
  uint32_t lo = 0;
  uint32_t hi = count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (labels[mid].key < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return (lo < count && labels[lo].key == key) ? &labels[lo] : nullptr;
}
inline const sh_label* findLabel(const sh_node& node, sh_id key) noexcept {
  return findLabel(node.labels, node.label_count, key);
}

inline bool containsId(const sh_id* ids, uint32_t count, sh_id id) noexcept {
  for (uint32_t i = 0; i < count; ++i) {
    if (sameId(ids[i], id)) {
      return true;
    }
  }
  return false;
}

// Go's strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits, no overflow.
inline bool parseInt64(std::string_view s, int64_t& out) noexcept {
  if (s.empty()) {
    return false;
  }
  std::size_t i = 0;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    i = 1;
    if (s.size() == 1) {
      return false;
    }
  }
  // Accumulate as a negative number so that INT64_MIN parses.
  const int64_t limit = negative ? INT64_MIN : -INT64_MAX;
  int64_t acc = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c < '0' || c > '9') {
      return false;
    }
    int digit = c - '0';
    if (acc < (limit + digit) / 10) {
      return false;
    }
    acc = acc * 10 - digit;
  }
  out = negative ? acc : -acc;
  return true;
}

// ---------------------------------------------------------------------------
// Label requirements and node selectors
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Taints and tolerations
// ---------------------------------------------------------------------------

// v1.Toleration.ToleratesTaint with the TaintTolerationComparisonOperators gate off (1.36
// default): Lt, Gt and unknown operators tolerate nothing.
inline bool toleratesTaint(const sh_toleration& t, const sh_taint& taint) noexcept {
  if (t.effect != SH_EFFECT_NONE && t.effect != taint.effect) {
    return false;
  }
  if (canonicalId(t.key) != SH_ID_NONE && !sameId(t.key, taint.key)) {
    return false;
  }
  switch (t.op) {
    case SH_TOLERATION_EQUAL:
      return sameId(t.value, taint.value);
    case SH_TOLERATION_EXISTS:
      return true;
    default:
      return false;
  }
}

inline bool tolerationsTolerateTaint(const sh_toleration* tolerations, uint32_t count,
                                     const sh_taint& taint) noexcept {
  for (uint32_t i = 0; i < count; ++i) {
    if (toleratesTaint(tolerations[i], taint)) {
      return true;
    }
  }
  return false;
}

// Bit masks of taint effects for findUntoleratedTaint's filter.
constexpr uint32_t effectBit(int32_t effect) noexcept {
  return 1u << static_cast<uint32_t>(effect);
}
constexpr uint32_t kDoNotScheduleEffects =
    effectBit(SH_EFFECT_NO_SCHEDULE) | effectBit(SH_EFFECT_NO_EXECUTE);

// The first taint whose effect is in `effects` that no toleration tolerates, or nullptr.
inline const sh_taint* findUntoleratedTaint(const sh_taint* taints, uint32_t taintCount,
                                            const sh_toleration* tolerations,
                                            uint32_t tolerationCount, uint32_t effects) noexcept {
  for (uint32_t i = 0; i < taintCount; ++i) {
    const sh_taint& taint = taints[i];
    bool known = taint.effect >= SH_EFFECT_NONE && taint.effect <= SH_EFFECT_NO_EXECUTE;
    if (!known || (effects & effectBit(taint.effect)) == 0) {
      continue;
    }
    if (!tolerationsTolerateTaint(tolerations, tolerationCount, taint)) {
      return &taint;
    }
  }
  return nullptr;
}
inline const sh_taint* findUntoleratedTaint(const sh_node& node, const sh_pod& pod,
                                            uint32_t effects) noexcept {
  return findUntoleratedTaint(node.taints, node.taint_count, pod.tolerations, pod.toleration_count,
                              effects);
}

// Name syntax (k8s.io/apimachinery/pkg/util/validation).
namespace detail {
inline bool isAlnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
inline bool isLowerAlnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
inline bool qualifiedNamePart(std::string_view s) noexcept {
  if (s.empty() || !isAlnum(s.front()) || !isAlnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!isAlnum(c) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}
// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*
inline bool dns1123Subdomain(std::string_view s) noexcept {
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !isLowerAlnum(label.front()) || !isLowerAlnum(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!isLowerAlnum(c) && c != '-') {
        return false;
      }
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}
}  // namespace detail

// ---------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------

// The scalar (extended resource or hugepages) entry with `name`, or nullptr.
inline const sh_quantity* findScalar(const sh_resources& r, sh_id name) noexcept {
  uint32_t lo = 0;
  uint32_t hi = r.scalar_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (r.scalars[mid].name < name) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return (lo < r.scalar_count && r.scalars[lo].name == name) ? &r.scalars[lo] : nullptr;
}

inline int64_t scalarValue(const sh_resources& r, sh_id name) noexcept {
  const sh_quantity* q = findScalar(r, name);
  return q == nullptr ? 0 : q->value;
}

// Any resource by name: cpu (millicores), memory, ephemeral-storage, pods, else a scalar.
inline int64_t resourceValue(const sh_resources& r, sh_id name) noexcept {
  switch (name) {
    case SH_ID_CPU:
      return r.milli_cpu;
    case SH_ID_MEMORY:
      return r.memory;
    case SH_ID_EPHEMERAL_STORAGE:
      return r.ephemeral_storage;
    case SH_ID_PODS:
      return r.allowed_pod_number;
    default:
      return scalarValue(r, name);
  }
}

// Whether a pod requests nothing at all (framework.Resource all zero, no scalar entry).
inline bool requestsNothing(const sh_resources& r) noexcept {
  return r.milli_cpu == 0 && r.memory == 0 && r.ephemeral_storage == 0 && r.scalar_count == 0;
}

inline bool startsWith(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// v1helper.IsNativeResource: no domain, or a domain within kubernetes.io.
inline bool isNativeResourceName(std::string_view name) noexcept {
  return name.find('/') == std::string_view::npos ||
         name.find("kubernetes.io/") != std::string_view::npos;
}

// v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io that is not a
// quota "requests." name and stays a qualified name as "requests.<name>".
inline bool isExtendedResourceName(std::string_view name) noexcept {
  if (isNativeResourceName(name) || startsWith(name, "requests.")) {
    return false;
  }
  std::size_t slash = name.find('/');
  std::string_view domain = name.substr(0, slash);
  std::string_view local = name.substr(slash + 1);
  return local.find('/') == std::string_view::npos && domain.size() + 9 <= 253 &&
         detail::dns1123Subdomain(domain) && local.size() <= 63 && detail::qualifiedNamePart(local);
}

// schedutil.IsScalarResourceName: extended, hugepages-*, prefixed native, attachable-volume-*.
inline bool isScalarResourceName(std::string_view name) noexcept {
  return isExtendedResourceName(name) || startsWith(name, "hugepages-") ||
         (name.find('/') != std::string_view::npos &&
          name.find("kubernetes.io/") != std::string_view::npos) ||
         startsWith(name, "attachable-volumes-");
}

// What a pod requests of one resource for scoring. With useRequested false (NodeResourcesFit),
// cpu and memory carry the scoring defaults (100m, 200Mi) for containers that set no request.
inline int64_t podResourceRequest(const sh_pod& pod, sh_id name, bool useRequested) noexcept {
  if (!useRequested && name == SH_ID_CPU) {
    return pod.non_zero_milli_cpu;
  }
  if (!useRequested && name == SH_ID_MEMORY) {
    return pod.non_zero_memory;
  }
  return name == SH_ID_PODS ? 0 : resourceValue(pod.requests, name);
}

// One resource of a node as the noderesources scorers see it: allocatable, what the node's
// pods request (`allocated`), and that plus the pod (`requested`). All zero means "leave this
// resource out of the score": a scalar the pod does not request, or one the node lacks.
struct ResourceAllocation {
  int64_t allocatable;
  int64_t allocated;
  int64_t requested;
};

// resourceAllocationScorer.calculateResourceAllocatableRequest. `scalar` is
// isScalarResourceName(name); with useRequested false the node side of cpu and memory uses
// the sums with scoring defaults (NonZeroRequested), like the pod side.
inline ResourceAllocation resourceAllocation(const sh_node_info& nodeInfo, sh_id name, bool scalar,
                                             int64_t podRequest, bool useRequested) noexcept {
  const sh_resources& allocatable = nodeInfo.node->allocatable;
  if (podRequest == 0 && scalar) {
    return {0, 0, 0};
  }
  int64_t allocated = 0;
  switch (name) {
    case SH_ID_CPU:
      allocated = useRequested ? nodeInfo.requested.milli_cpu : nodeInfo.non_zero_milli_cpu;
      return {allocatable.milli_cpu, allocated, allocated + podRequest};
    case SH_ID_MEMORY:
      allocated = useRequested ? nodeInfo.requested.memory : nodeInfo.non_zero_memory;
      return {allocatable.memory, allocated, allocated + podRequest};
    case SH_ID_EPHEMERAL_STORAGE:
      allocated = nodeInfo.requested.ephemeral_storage;
      return {allocatable.ephemeral_storage, allocated, allocated + podRequest};
    default: {
      const sh_quantity* q = findScalar(allocatable, name);
      if (q == nullptr) {
        return {0, 0, 0};
      }
      allocated = scalarValue(nodeInfo.requested, name);
      return {q->value, allocated, allocated + podRequest};
    }
  }
}

// ---------------------------------------------------------------------------
// Scores
// ---------------------------------------------------------------------------

// helper.DefaultNormalizeScore: scale to [0, maxPriority] by the highest score, optionally
// reversed. All zero stays zero (or becomes maxPriority when reversed).
inline void defaultNormalizeScore(int64_t maxPriority, bool reverse, sh_node_score* scores,
                                  std::size_t count) noexcept {
  int64_t maxCount = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (scores[i].score > maxCount) {
      maxCount = scores[i].score;
    }
  }
  if (maxCount == 0) {
    if (reverse) {
      for (std::size_t i = 0; i < count; ++i) {
        scores[i].score = maxPriority;
      }
    }
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    int64_t score = maxPriority * scores[i].score / maxCount;
    scores[i].score = reverse ? maxPriority - score : score;
  }
}

// ---------------------------------------------------------------------------
// Args validation, with the wording of k8s.io/apimachinery's field errors. A host reports the
// path, so these give the part after "<path>: ".
// ---------------------------------------------------------------------------

inline std::string quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  out += '"';
  return out;
}

inline std::string invalidValue(std::string_view valueRepr, std::string_view detail) {
  std::string out = "Invalid value: ";
  out.append(valueRepr);
  if (!detail.empty()) {
    out += ": ";
    out.append(detail);
  }
  return out;
}
inline std::string requiredValue(std::string_view detail) {
  return detail.empty() ? std::string("Required value") : "Required value: " + std::string(detail);
}
inline std::string forbidden(std::string_view detail) {
  return "Forbidden: " + std::string(detail);
}
inline std::string duplicateValue(std::string_view valueRepr) {
  return "Duplicate value: " + std::string(valueRepr);
}
inline std::string unsupportedValue(std::string_view valueRepr,
                                    const std::vector<std::string_view>& supported) {
  std::string out = "Unsupported value: ";
  out.append(valueRepr);
  out += ": supported values: ";
  for (std::size_t i = 0; i < supported.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += quoted(supported[i]);
  }
  return out;
}

// validation.IsQualifiedName: the problems with `value` as a label key or resource name, in
// upstream's words; empty when it is valid.
inline std::vector<std::string> qualifiedNameErrors(std::string_view value) {
  static const char kNameMsg[] =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  static const char kSubdomainMsg[] =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
      "used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  std::vector<std::string> errs;
  std::string_view name = value;
  std::size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back(std::string("a qualified name ") + kNameMsg +
                     " with an optional DNS subdomain prefix and '/' (e.g. "
                     "'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) {
        errs.emplace_back("prefix part must be no more than 253 characters");
      }
      if (!detail::dns1123Subdomain(prefix)) {
        errs.push_back(std::string("prefix part ") + kSubdomainMsg);
      }
    }
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else {
    if (name.size() > 63) {
      errs.emplace_back("name part must be no more than 63 characters");
    }
    if (!detail::qualifiedNamePart(name)) {
      errs.push_back(std::string("name part ") + kNameMsg);
    }
  }
  return errs;
}

// Checks on an args tree (schedhost::Args). Each reports through Args::error, so a plugin
// constructor can run them all and let the host list every problem.

inline bool expectObject(const Args& node) {
  if (!node.isObject()) {
    node.error("Invalid value: expected an object");
    return false;
  }
  return true;
}

inline bool expectArray(const Args& node) {
  if (!node.isArray()) {
    node.error("Invalid value: expected an array");
    return false;
  }
  return true;
}

// Reports the members of an object that are not in `known`, as strict decoding does. The
// "kind" and "apiVersion" of a typed args object are always accepted.
inline void rejectUnknownFields(const Args& obj, std::initializer_list<std::string_view> known) {
  for (std::size_t i = 0; i < obj.size(); ++i) {
    std::string_view key = obj.keyAt(i);
    bool ok = key == "kind" || key == "apiVersion";
    for (std::string_view k : known) {
      ok = ok || k == key;
    }
    if (!ok) {
      obj.at(i).error("unknown field " + quoted(key));
    }
  }
}

// Reports `message` at parent[child], or at `parent` naming the child when it is absent.
inline void errorAt(const Args& parent, const char* child, const std::string& message) {
  Args node = parent[child];
  if (node.present()) {
    node.error(message);
  } else {
    parent.error(std::string(child) + ": " + message);
  }
}

// ---------------------------------------------------------------------------
// State kept across cycles
// ---------------------------------------------------------------------------
// A NodeInfo's generation changes whenever its node or its pods change (the host draws it from
// one process-wide counter, as kube-scheduler does), so a plugin may keep per-node results from
// one cycle to the next and recompute only the nodes whose stamp moved: O(nodes) per cycle
// instead of O(pods). Such a cache belongs to the serial points (PreFilter, PreScore) and needs
// a lock of its own; Filter, Score and the PreFilter extensions run concurrently and must read
// only what the cycle state holds.

// A node's identity and version: its node object (replaced whenever the node changes) and its
// generation. Generation 0 means "unknown": such a stamp equals none.
struct NodeStamp {
  const sh_node* node = nullptr;
  uint64_t generation = 0;

  bool sameAs(const NodeStamp& other) const noexcept {
    return generation != 0 && generation == other.generation && node == other.node;
  }
};

inline NodeStamp stampOf(const sh_node_info& ni) noexcept { return {ni.node, ni.generation}; }

// The nodes of one cycle's snapshot, in snapshot order, with their stamps: read once, then
// shared by every NodeRecords the plugin brings up to date in that cycle. version() tells reads
// apart (0: never read), so a later point of the same cycle can tell whether the scan it
// recorded is still the last one and use it again instead of reading the nodes anew.
class NodeScan {
 public:
  void read(const Snapshot& snapshot) {
    ++version_;
    const std::size_t n = snapshot.size();
    nodes_.resize(n);
    stamps_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const sh_node_info& ni = snapshot.at(i);
      nodes_[i] = &ni;
      stamps_[i] = stampOf(ni);
    }
  }
  std::size_t size() const noexcept { return nodes_.size(); }
  const sh_node_info& at(std::size_t i) const noexcept { return *nodes_[i]; }
  const NodeStamp& stamp(std::size_t i) const noexcept { return stamps_[i]; }
  uint64_t version() const noexcept { return version_; }

 private:
  std::vector<const sh_node_info*> nodes_;
  std::vector<NodeStamp> stamps_;
  uint64_t version_ = 0;
};

// Per-node results R (a struct with a `NodeStamp stamp` member) by snapshot position, kept in
// step with the snapshot. sync() keeps the record of every node whose stamp is unchanged, calls
// drop(const R&) for every record that goes (its node changed or left) and fill(i, R&) for every
// node of the scan that needs a new record (its stamp already set). A caller keeping totals over
// the records subtracts in drop and adds in fill, so the totals always cover exactly the
// snapshot's nodes. When the node list changed length or order (most positions differ), records
// are matched by stamp, so a reordered snapshot costs O(nodes), not a recount.
template <typename R>
class NodeRecords {
 public:
  template <typename Drop, typename Fill>
  void sync(const NodeScan& scan, Drop&& drop, Fill&& fill) {
    const std::size_t n = scan.size();
    std::size_t changed = 0;
    if (records_.size() == n) {
      for (std::size_t i = 0; i < n; ++i) {
        changed += records_[i].stamp.sameAs(scan.stamp(i)) ? 0 : 1;
      }
    }
    if (records_.size() == n && (changed <= 8 || changed * 16 <= n)) {
      for (std::size_t i = 0; i < n && changed > 0; ++i) {
        if (!records_[i].stamp.sameAs(scan.stamp(i))) {
          drop(static_cast<const R&>(records_[i]));
          records_[i] = R{};
          records_[i].stamp = scan.stamp(i);
          fill(i, records_[i]);
          --changed;
        }
      }
      return;
    }
    std::unordered_map<uint64_t, std::size_t> byGeneration;
    byGeneration.reserve(records_.size());
    for (std::size_t i = 0; i < records_.size(); ++i) {
      if (records_[i].stamp.generation != 0) {
        byGeneration.emplace(records_[i].stamp.generation, i);
      }
    }
    std::vector<R> next(n);
    std::vector<bool> taken(records_.size(), false);
    for (std::size_t i = 0; i < n; ++i) {
      auto it = byGeneration.find(scan.stamp(i).generation);
      if (it != byGeneration.end() && !taken[it->second] &&
          records_[it->second].stamp.sameAs(scan.stamp(i))) {
        taken[it->second] = true;
        next[i] = std::move(records_[it->second]);
        continue;
      }
      next[i].stamp = scan.stamp(i);
      fill(i, next[i]);
    }
    for (std::size_t i = 0; i < records_.size(); ++i) {
      if (!taken[i]) {
        drop(static_cast<const R&>(records_[i]));
      }
    }
    records_ = std::move(next);
  }

  std::size_t size() const noexcept { return records_.size(); }
  const R& operator[](std::size_t i) const noexcept { return records_[i]; }

 private:
  std::vector<R> records_;
};

// An open-addressing hash map from 64-bit keys (ids, or two ids packed into one) to V, for
// counts that a cycle state copies: a copy is one allocation. Entries are never erased; the
// key kNoKey (all ones) is reserved. forEach visits entries in slot order, which depends only
// on the sequence of insertions.
template <typename V>
class IdMap {
 public:
  static constexpr uint64_t kNoKey = ~uint64_t{0};

  const V* find(uint64_t key) const noexcept {
    if (size_ == 0) {
      return nullptr;
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = slotOf(key);; i = (i + 1) & mask) {
      if (slots_[i].key == key) {
        return &slots_[i].value;
      }
      if (slots_[i].key == kNoKey) {
        return nullptr;
      }
    }
  }
  V* find(uint64_t key) noexcept {
    return const_cast<V*>(static_cast<const IdMap&>(*this).find(key));
  }

  // The entry of `key`, inserted as V{} when absent.
  V& operator[](uint64_t key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) {
      grow();
    }
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = slotOf(key);
    while (slots_[i].key != key && slots_[i].key != kNoKey) {
      i = (i + 1) & mask;
    }
    if (slots_[i].key == kNoKey) {
      slots_[i].key = key;
      ++size_;
    }
    return slots_[i].value;
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  template <typename Fn>
  void forEach(Fn&& fn) const {
    for (const Slot& s : slots_) {
      if (s.key != kNoKey) {
        fn(s.key, s.value);
      }
    }
  }

 private:
  struct Slot {
    uint64_t key = kNoKey;
    V value{};
  };

  std::size_t slotOf(uint64_t key) const noexcept {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 8 : old.size() * 2;
    slots_.assign(capacity, Slot{});
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) {
      --shift_;
    }
    size_ = 0;
    for (Slot& s : old) {
      if (s.key != kNoKey) {
        (*this)[s.key] = std::move(s.value);
      }
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_HPP
