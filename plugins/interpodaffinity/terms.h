// Pod (anti-)affinity terms as kube-scheduler's framework.AffinityTerm sees them: which
// namespaces a term covers, whether it matches a pod, and topology pairs as one integer.
#ifndef SCHEDHOST_PLUGINS_INTERPODAFFINITY_TERMS_H
#define SCHEDHOST_PLUGINS_INTERPODAFFINITY_TERMS_H

#include <schedhost/plugin.h>
#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace schedhost::plugins::interpodaffinity {

// A span of terms of one kind.
template <typename T>
struct Span {
  const T* data = nullptr;
  uint32_t size = 0;
  const T* begin() const noexcept { return data; }
  const T* end() const noexcept { return data + size; }
  bool empty() const noexcept { return size == 0; }
};
using Terms = Span<sh_pod_affinity_term>;
using WeightedTerms = Span<sh_weighted_pod_affinity_term>;

Terms requiredAffinityTerms(const sh_pod& pod) noexcept;
Terms requiredAntiAffinityTerms(const sh_pod& pod) noexcept;
WeightedTerms preferredAffinityTerms(const sh_pod& pod) noexcept;
WeightedTerms preferredAntiAffinityTerms(const sh_pod& pod) noexcept;

// The same lists for a pod already placed: a list with a term that does not parse is empty,
// as framework.PodInfo keeps no terms of a kind that failed to parse.
Terms existingRequiredAffinityTerms(const sh_pod& pod) noexcept;
Terms existingRequiredAntiAffinityTerms(const sh_pod& pod) noexcept;
WeightedTerms existingPreferredAffinityTerms(const sh_pod& pod) noexcept;
WeightedTerms existingPreferredAntiAffinityTerms(const sh_pod& pod) noexcept;

// Why framework.NewPodInfo cannot parse the pod's terms (metav1.LabelSelectorAsSelector), or
// "" when every term parses.
std::string podParseError(const sh_pod& pod, const Host& host);

// A namespace's labels; `labels` is null only when the namespace is unknown.
struct NsLabels {
  const sh_label* labels = nullptr;
  uint32_t count = 0;
};

// The labels of namespaces, looked up through the host once per namespace.
class NamespaceLabels {
 public:
  NamespaceLabels(const sh_host_api* api, sh_cycle* cycle) noexcept : api_(api), cycle_(cycle) {}
  NsLabels get(std::string_view ns);

 private:
  const sh_host_api* api_;
  sh_cycle* cycle_;
  std::unordered_map<std::string_view, NsLabels> cache_;
};

// AffinityTerm.Matches for a term of the pod being scheduled, whose namespaceSelector is
// resolved against the cluster's namespaces (mergeAffinityTermNamespacesIfNotEmpty): `other`
// must be in the term's namespaces (the owner's, `ownerNs`, when neither namespaces nor
// namespaceSelector is set) or in a namespace the selector matches, and match labelSelector.
bool incomingTermMatches(const sh_pod_affinity_term& term, std::string_view ownerNs,
                         const sh_pod& other, NamespaceLabels& namespaces);

// AffinityTerm.Matches for a term of another pod (namespace `ownerNs`) against `pod`, whose
// namespace has `podNsLabels`.
bool termMatches(const sh_pod_affinity_term& term, std::string_view ownerNs, const sh_pod& pod,
                 const NsLabels& podNsLabels) noexcept;

// podMatchesAllAffinityTerms: false for no terms.
bool podMatchesAllIncomingTerms(Terms terms, std::string_view ownerNs, const sh_pod& other,
                                NamespaceLabels& namespaces);
bool podMatchesAllTerms(Terms terms, std::string_view ownerNs, const sh_pod& pod,
                        const NsLabels& podNsLabels) noexcept;

// A (topology key, value) pair as one integer.
inline uint64_t topologyPair(sh_id key, sh_id value) noexcept {
  return (static_cast<uint64_t>(canonicalId(key)) << 32) | canonicalId(value);
}

}  // namespace schedhost::plugins::interpodaffinity

#endif  // SCHEDHOST_PLUGINS_INTERPODAFFINITY_TERMS_H
