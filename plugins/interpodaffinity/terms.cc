// Pod (anti-)affinity term helpers. Upstream: pkg/scheduler/framework/types.go (AffinityTerm,
// PodInfo.Update) and interpodaffinity/plugin.go (mergeAffinityTermNamespacesIfNotEmpty).
#include "terms.h"

#include <schedhost/plugin.hpp>

#include <vector>

namespace schedhost::plugins::interpodaffinity {

namespace {

Terms required(const sh_pod_affinity* a) noexcept {
  return a == nullptr ? Terms{} : Terms{a->required, a->required_count};
}
WeightedTerms preferred(const sh_pod_affinity* a) noexcept {
  return a == nullptr ? WeightedTerms{} : WeightedTerms{a->preferred, a->preferred_count};
}

const char* operatorName(int32_t op) noexcept {
  switch (op) {
    case SH_OP_IN:
      return "In";
    case SH_OP_NOT_IN:
      return "NotIn";
    case SH_OP_EXISTS:
      return "Exists";
    case SH_OP_DOES_NOT_EXIST:
      return "DoesNotExist";
    case SH_OP_GT:
      return "Gt";
    case SH_OP_LT:
      return "Lt";
    default:
      return "";
  }
}

// Go's %#v of a []string built by append([]string(nil), values...).
std::string goStrings(const sh_requirement& r, const Host* host) {
  if (r.value_count == 0) {
    return "[]string(nil)";
  }
  std::string out = "[]string{";
  for (uint32_t i = 0; i < r.value_count; ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += quoted(host != nullptr ? host->str(r.values[i]) : std::string_view());
  }
  return out + "}";
}

// metav1.LabelSelectorAsSelector's error for the first requirement it refuses, or "".
std::string selectorError(const sh_label_selector* s, const Host* host) {
  if (s == nullptr) {
    return "";
  }
  for (uint32_t i = 0; i < s->match_expression_count; ++i) {
    const sh_requirement& r = s->match_expressions[i];
    switch (r.op) {
      case SH_OP_IN:
      case SH_OP_NOT_IN:
        if (r.value_count == 0) {
          return "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set "
                 "can't be empty";
        }
        break;
      case SH_OP_EXISTS:
      case SH_OP_DOES_NOT_EXIST:
        if (r.value_count != 0) {
          return "values: Invalid value: " + goStrings(r, host) +
                 ": values set must be empty for exists and does not exist";
        }
        break;
      default:
        return quoted(operatorName(r.op)) + " is not a valid label selector operator";
    }
  }
  return "";
}

bool selectorValid(const sh_label_selector* s) noexcept {
  if (s == nullptr) {
    return true;
  }
  for (uint32_t i = 0; i < s->match_expression_count; ++i) {
    const sh_requirement& r = s->match_expressions[i];
    if (r.op == SH_OP_GT || r.op == SH_OP_LT || !requirementValid(r)) {
      return false;
    }
  }
  return true;
}

bool termValid(const sh_pod_affinity_term& t) noexcept {
  return selectorValid(t.label_selector) && selectorValid(t.namespace_selector);
}

std::string termError(const sh_pod_affinity_term& t, const Host& host) {
  std::string err = selectorError(t.label_selector, &host);
  return err.empty() ? selectorError(t.namespace_selector, &host) : err;
}

bool allValid(Terms terms) noexcept {
  for (const sh_pod_affinity_term& t : terms) {
    if (!termValid(t)) {
      return false;
    }
  }
  return true;
}
bool allValid(WeightedTerms terms) noexcept {
  for (const sh_weighted_pod_affinity_term& t : terms) {
    if (!termValid(t.term)) {
      return false;
    }
  }
  return true;
}

bool selectorEmpty(const sh_label_selector* s) noexcept {
  return s != nullptr && s->match_label_count == 0 && s->match_expression_count == 0;
}

bool inNamespaces(const sh_pod_affinity_term& t, std::string_view ns) noexcept {
  for (uint32_t i = 0; i < t.namespace_count; ++i) {
    if (view(t.namespaces[i]) == ns) {
      return true;
    }
  }
  return false;
}

bool ownNamespaceOnly(const sh_pod_affinity_term& t) noexcept {
  return t.namespace_count == 0 && t.namespace_selector == nullptr;
}

}  // namespace

Terms requiredAffinityTerms(const sh_pod& pod) noexcept { return required(pod.pod_affinity); }
Terms requiredAntiAffinityTerms(const sh_pod& pod) noexcept {
  return required(pod.pod_anti_affinity);
}
WeightedTerms preferredAffinityTerms(const sh_pod& pod) noexcept {
  return preferred(pod.pod_affinity);
}
WeightedTerms preferredAntiAffinityTerms(const sh_pod& pod) noexcept {
  return preferred(pod.pod_anti_affinity);
}

Terms existingRequiredAffinityTerms(const sh_pod& pod) noexcept {
  Terms t = requiredAffinityTerms(pod);
  return allValid(t) ? t : Terms{};
}
Terms existingRequiredAntiAffinityTerms(const sh_pod& pod) noexcept {
  Terms t = requiredAntiAffinityTerms(pod);
  return allValid(t) ? t : Terms{};
}
WeightedTerms existingPreferredAffinityTerms(const sh_pod& pod) noexcept {
  WeightedTerms t = preferredAffinityTerms(pod);
  return allValid(t) ? t : WeightedTerms{};
}
WeightedTerms existingPreferredAntiAffinityTerms(const sh_pod& pod) noexcept {
  WeightedTerms t = preferredAntiAffinityTerms(pod);
  return allValid(t) ? t : WeightedTerms{};
}

std::string podParseError(const sh_pod& pod, const Host& host) {
  std::vector<std::string> errs;
  auto check = [&errs, &host](const char* what, auto terms, auto termOf) {
    for (const auto& t : terms) {
      std::string err = termError(termOf(t), host);
      if (!err.empty()) {
        errs.push_back(std::string(what) + ": " + err);
        return;
      }
    }
  };
  auto plain = [](const sh_pod_affinity_term& t) -> const sh_pod_affinity_term& { return t; };
  auto weighted = [](const sh_weighted_pod_affinity_term& t) -> const sh_pod_affinity_term& {
    return t.term;
  };
  check("requiredAffinityTerms", requiredAffinityTerms(pod), plain);
  check("requiredAntiAffinityTerms", requiredAntiAffinityTerms(pod), plain);
  check("preferredAffinityTerms", preferredAffinityTerms(pod), weighted);
  check("preferredAntiAffinityTerms", preferredAntiAffinityTerms(pod), weighted);
  if (errs.size() == 1) {
    return errs[0];
  }
  std::string out;
  for (std::size_t i = 0; i < errs.size(); ++i) {
    out += (i == 0 ? "[" : ", ") + errs[i];
  }
  return errs.empty() ? out : out + "]";
}

NsLabels NamespaceLabels::get(std::string_view ns) {
  auto it = cache_.find(ns);
  if (it != cache_.end()) {
    return it->second;
  }
  const sh_label* labels = nullptr;
  std::size_t n = api_->namespace_labels(cycle_, ns.data(), ns.size(), &labels);
  NsLabels out{labels, static_cast<uint32_t>(n)};
  cache_.emplace(ns, out);
  return out;
}

bool incomingTermMatches(const sh_pod_affinity_term& term, std::string_view ownerNs,
                         const sh_pod& other, NamespaceLabels& namespaces) {
  std::string_view ns = view(other.namespace_);
  bool nsOk;
  if (ownNamespaceOnly(term)) {
    nsOk = ns == ownerNs;
  } else {
    nsOk = inNamespaces(term, ns);
    if (!nsOk && term.namespace_selector != nullptr) {
      if (selectorEmpty(term.namespace_selector)) {
        nsOk = true;  // Everything(): left as a selector, matches every namespace
      } else {
        // The selector is resolved against the namespaces that exist: a pod in an unknown
        // namespace is never selected, whatever the selector.
        NsLabels l = namespaces.get(ns);
        nsOk =
            l.labels != nullptr && matchLabelSelector(term.namespace_selector, l.labels, l.count);
      }
    }
  }
  return nsOk && matchLabelSelector(term.label_selector, other.labels, other.label_count);
}

bool termMatches(const sh_pod_affinity_term& term, std::string_view ownerNs, const sh_pod& pod,
                 const NsLabels& podNsLabels) noexcept {
  std::string_view ns = view(pod.namespace_);
  bool nsOk =
      ownNamespaceOnly(term)
          ? ns == ownerNs
          : inNamespaces(term, ns) ||
                matchLabelSelector(term.namespace_selector, podNsLabels.labels, podNsLabels.count);
  return nsOk && matchLabelSelector(term.label_selector, pod.labels, pod.label_count);
}

bool podMatchesAllIncomingTerms(Terms terms, std::string_view ownerNs, const sh_pod& other,
                                NamespaceLabels& namespaces) {
  if (terms.empty()) {
    return false;
  }
  for (const sh_pod_affinity_term& t : terms) {
    if (!incomingTermMatches(t, ownerNs, other, namespaces)) {
      return false;
    }
  }
  return true;
}

bool podMatchesAllTerms(Terms terms, std::string_view ownerNs, const sh_pod& pod,
                        const NsLabels& podNsLabels) noexcept {
  if (terms.empty()) {
    return false;
  }
  for (const sh_pod_affinity_term& t : terms) {
    if (!termMatches(t, ownerNs, pod, podNsLabels)) {
      return false;
    }
  }
  return true;
}

}  // namespace schedhost::plugins::interpodaffinity
