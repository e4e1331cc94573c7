// schedhost C++ SDK helpers: the matching rules every scheduling plugin needs, with
// kube-scheduler's semantics, written against the data views of plugin.h. This header includes
// every topic header of schedhost/helpers/; a plugin may include just the ones it uses.
//
//   labels.hpp       canonicalId, sameId, findById, findLabel, containsId, parseInt64 (Go
//                    strconv.ParseInt, base 10)
//   selectors.hpp    matchRequirement (labels.Requirement), matchNodeSelectorTerm,
//                    matchNodeSelectorTerms (nodeaffinity.NodeSelector), matchNodeSelectorMap
//                    (spec.nodeSelector), matchRequiredNodeAffinity
//                    (nodeaffinity.RequiredNodeAffinity), scorePreferredTerms,
//                    matchLabelSelector (metav1.LabelSelector)
//   tolerations.hpp  toleratesTaint (v1.Toleration.ToleratesTaint), tolerationsTolerateTaint,
//                    findUntoleratedTaint (v1helper.FindMatchingUntoleratedTaint)
//   names.hpp        name syntax (k8s.io/apimachinery/pkg/util/validation): isDns1123Subdomain,
//                    isQualifiedNamePart, qualifiedNameErrors, labelValueErrors; resource
//                    names: isNativeResourceName, isExtendedResourceName, isScalarResourceName
//   resources.hpp    findScalar, scalarValue, resourceValue, requestsNothing,
//                    podResourceRequest and resourceAllocation (noderesources'
//                    resourceAllocationScorer)
//   scores.hpp       defaultNormalizeScore (helper.DefaultNormalizeScore)
//   args.hpp         field-error wording (invalidValue, requiredValue, ...), args-tree checks
//                    (expectObject, rejectUnknownFields, errorAt), parseResourceSpecs
//                    (config.ResourceSpec lists)
//   cross_cycle.hpp  NodeStamp, NodeScan and NodeRecords (per-node results recomputed only
//                    where a node changed), CounterCache (a few of them by query key)
//   id_map.hpp       IdMap (counts that are cheap to copy)
//
// Everything a Filter or Score calls is noexcept and allocation-free. Header-only, C++17.
#ifndef SCHEDHOST_HELPERS_HPP
#define SCHEDHOST_HELPERS_HPP

#include <schedhost/plugin.h>
#include <schedhost/helpers/args.hpp>
#include <schedhost/helpers/cross_cycle.hpp>
#include <schedhost/helpers/id_map.hpp>
#include <schedhost/helpers/labels.hpp>
#include <schedhost/helpers/names.hpp>
#include <schedhost/helpers/resources.hpp>
#include <schedhost/helpers/scores.hpp>
#include <schedhost/helpers/selectors.hpp>
#include <schedhost/helpers/tolerations.hpp>
#include <schedhost/plugin.hpp>

#endif  // SCHEDHOST_HELPERS_HPP
