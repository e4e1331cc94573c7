// The node affinity of a PersistentVolume (spec.nodeAffinity.required) and upstream's
// CheckNodeAffinity: the volume fits a node whose labels match one of its node selector terms.
// As upstream checks it, the node carries only its labels: a term's matchFields are parsed but
// never compared (nodeaffinity skips fields for a node without a name), so a term of fields
// alone matches every node. An unparsable term matches nothing; its errors are what
// CheckNodeAffinity returns when no term matched.
// Upstream: component-helpers/storage/volume/helpers.go (CheckNodeAffinity) and
// component-helpers/scheduling/corev1/nodeaffinity (LazyErrorNodeSelector).
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_NODE_AFFINITY_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_NODE_AFFINITY_H

#include "selectors.h"

#include <schedhost/plugin.hpp>

#include <string>
#include <vector>

namespace schedhost::plugins::volumebinding {

// spec.nodeAffinity as text, what the CSI migration rewrites before it is compiled.
struct NodeAffinityText {
  struct Term {
    std::vector<RequirementText> expressions;
    std::vector<RequirementText> fields;
  };
  bool present = false;          // spec.nodeAffinity is set
  bool requiredPresent = false;  // spec.nodeAffinity.required is set
  std::vector<Term> terms;       // required.nodeSelectorTerms, empty ones included

  static NodeAffinityText read(const Json& nodeAffinity);
};

// A compiled spec.nodeAffinity.
class VolumeNodeAffinity {
 public:
  static VolumeNodeAffinity compile(const Host& host, const NodeAffinityText& text);

  // CheckNodeAffinity(pv, node.Labels) == nil.
  bool matches(LabelView labels) const noexcept;
  // The error CheckNodeAffinity returns for labels it does not match.
  std::string mismatchError() const;

 private:
  struct Term {
    RequirementSet labels;
    std::vector<std::string> errors;  // parse errors: the term matches nothing
  };
  bool required_ = false;
  std::vector<Term> terms_;  // the non-empty terms
};

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_NODE_AFFINITY_H
