// What one node contributes to InterPodAffinity's counts, and the keys under which a
// PairCounter may keep those contributions across cycles (pair_counts.h).
//
//   existing anti-affinity   channel 0: the required anti-affinity terms of the node's pods
//                            that match the incoming pod (PreFilter)
//   incoming terms           channel 0: the incoming pod's required affinity terms, when a pod
//                            of the node matches all of them; channel 1: its required
//                            anti-affinity terms matched by the node's pods (PreFilter)
//   scores                   channel 0: preferred terms both ways and the node's pods' required
//                            affinity, weighted (PreScore)
//
// A key holds everything besides the node that decides the contribution: equal keys, equal
// contributions from equal nodes. The incoming pod's terms are matched against other pods'
// namespaces; with a non-empty namespaceSelector that depends on namespace labels, which can
// change while no node does, so such terms are never kept (cacheable() is false).
#ifndef SCHEDHOST_PLUGINS_INTERPODAFFINITY_NODE_CONTRIBUTIONS_H
#define SCHEDHOST_PLUGINS_INTERPODAFFINITY_NODE_CONTRIBUTIONS_H

#include "pair_counts.h"
#include "terms.h"

#include <schedhost/plugin.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace schedhost::plugins::interpodaffinity {

// The pod being scheduled, as the existing pods' terms see it.
struct IncomingPod {
  const sh_pod* pod = nullptr;
  std::string_view ns;
  NsLabels nsLabels;  // the labels of its namespace
};

// Whether the incoming pod's terms may be kept across cycles (no non-empty namespaceSelector).
bool cacheable(Terms terms) noexcept;
bool cacheable(WeightedTerms terms) noexcept;

// Existing pods' required anti-affinity terms matching the incoming pod.
void collectExistingAntiAffinity(const sh_node_info& ni, const IncomingPod& in, PairSink& sink);
std::string existingAntiAffinityKey(const IncomingPod& in);

// The incoming pod's required affinity (channel 0) and anti-affinity (channel 1) terms.
struct IncomingTerms {
  Terms affinity;
  Terms antiAffinity;
  std::string_view ns;
};
void collectIncomingTerms(const sh_node_info& ni, const IncomingTerms& terms,
                          NamespaceLabels& namespaces, PairSink& sink);
std::string incomingTermsKey(const IncomingTerms& terms);

// PreScore's weights: with hasConstraints (the pod has preferred terms) every pod of the node
// counts, else only its pods with affinity.
struct ScoreQuery {
  IncomingPod in;
  WeightedTerms preferredAffinity;
  WeightedTerms preferredAntiAffinity;
  bool hasConstraints = false;
  int64_t hardPodAffinityWeight = 0;
};
void collectScores(const sh_node_info& ni, const ScoreQuery& q, NamespaceLabels& namespaces,
                   PairSink& sink);
std::string scoresKey(const ScoreQuery& q);

}  // namespace schedhost::plugins::interpodaffinity

#endif  // SCHEDHOST_PLUGINS_INTERPODAFFINITY_NODE_CONTRIBUTIONS_H
