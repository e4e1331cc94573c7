// Label requirements read from the JSON of storage objects, with their keys and values interned
// so that they match node and object labels by id: labels.Requirement and labels.Selector
// (ANDed requirements), metav1.LabelSelectorAsSelector (a claim's spec.selector, a
// CSIStorageCapacity's nodeTopology) and v1helper.MatchTopologySelectorTerms (a StorageClass's
// allowedTopologies). Parse problems are kept as upstream's field errors would word them.
// Upstream: k8s.io/apimachinery/pkg/labels/selector.go, pkg/apis/meta/v1/helpers.go,
// pkg/apis/core/v1/helper/helpers.go.
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_SELECTORS_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_SELECTORS_H

#include <schedhost/plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::volumebinding {

// Labels to match: an id-sorted array, a node's or an object's.
struct LabelView {
  const sh_label* labels = nullptr;
  uint32_t count = 0;
};

// One requirement as read from JSON, before validation.
struct RequirementText {
  std::string key;
  std::string op;  // "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
  std::vector<std::string> values;
  bool valuesPresent = false;  // values was given (even empty): Go's nil vs empty slice
};

// Reads {key, operator, values} objects of a JSON array.
std::vector<RequirementText> readRequirements(const Json& list);

// labels.Selector: requirements ANDed, matched by id.
class RequirementSet {
 public:
  // Adds a requirement after labels.NewRequirement's validation, reporting its field errors
  // (prefixed with `path`) into `errors`; an invalid one is not added.
  void add(const Host& host, const RequirementText& r, const std::string& path,
           std::vector<std::string>& errors);
  bool matches(LabelView labels) const noexcept;
  bool empty() const noexcept { return reqs_.empty(); }

 private:
  struct Req {
    sh_id key = SH_ID_NONE;
    int32_t op = SH_OP_IN;
    std::vector<sh_id> values;
    int64_t number = 0;
  };
  std::vector<Req> reqs_;
};

// metav1.LabelSelectorAsSelector: an absent or null selector matches nothing, an empty one
// everything.
class LabelSelector {
 public:
  static LabelSelector read(const Host& host, const Json& selector);
  // The conversion's error ("" when it parsed); a selector with an error matches nothing.
  const std::string& error() const noexcept { return error_; }
  bool matches(LabelView labels) const noexcept {
    return error_.empty() && (everything_ || (!nothing_ && reqs_.matches(labels)));
  }

 private:
  bool nothing_ = true;
  bool everything_ = false;
  RequirementSet reqs_;
  std::string error_;
};

// v1helper.MatchTopologySelectorTerms over a StorageClass's allowedTopologies: an absent or
// empty list matches every node; terms are ORed, an empty or unparsable term matches nothing.
class TopologyTerms {
 public:
  static TopologyTerms read(const Host& host, const Json& allowedTopologies);
  bool matches(LabelView labels) const noexcept;

 private:
  bool any_ = true;
  std::vector<RequirementSet> terms_;
};

// An aggregate of errors as k8s.io/apimachinery/pkg/util/errors words it: one error as itself,
// several (duplicates dropped) as "[a, b]".
std::string aggregate(const std::vector<std::string>& errors);
// Go's %#v of a []string, as field.Invalid prints it.
std::string goStringSlice(const std::vector<std::string>& values, bool present);

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_SELECTORS_H
