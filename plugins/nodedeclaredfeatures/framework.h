// The node-declared-features framework, as far as the scheduler uses it: a registry of features
// sorted by name, FeatureSet (a set of registry positions), InferForPodScheduling with the
// MaxVersion rule, and TryMap of a node's status.declaredFeatures.
// Upstream: k8s.io/component-helpers/nodedeclaredfeatures/{framework,featureset,bitmap}.go
// (v0.36.2). Header-only and free of host state, so that a test can build a framework of its
// own features.
#ifndef SCHEDHOST_PLUGINS_NODEDECLAREDFEATURES_FRAMEWORK_H
#define SCHEDHOST_PLUGINS_NODEDECLAREDFEATURES_FRAMEWORK_H

#include <schedhost/objects.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::nodedeclaredfeatures {

// A Kubernetes version, major.minor.patch. Neither the scheduler's version nor a registered
// MaxVersion carries a pre-release part, so none is modelled.
struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
};

// version.Version.GreaterThan over major.minor.patch.
constexpr bool greaterThan(const Version& a, const Version& b) noexcept {
  if (a.major != b.major) {
    return a.major > b.major;
  }
  if (a.minor != b.minor) {
    return a.minor > b.minor;
  }
  return a.patch > b.patch;
}

// What an inference found malformed in the pod's spec: the field's path from the pod
// ("spec.containers[0].restartPolicyRules") and what it should have been ("an array").
struct SpecError {
  std::string field;
  std::string expected;
  bool empty() const noexcept { return field.empty(); }
};

// Feature.InferForScheduling: whether scheduling a pod with this spec (the "spec" node of its
// manifest) needs the feature. A malformed field fills `error` and answers false.
using InferFn = bool (*)(const Json& spec, SpecError& error);

// One registered feature (types.Feature, the parts the scheduler calls).
struct Feature {
  std::string_view name;
  InferFn inferForScheduling = nullptr;
  // The last version for which the feature is a scheduling factor (inclusive); none: no bound.
  std::optional<Version> maxVersion;
};

// A set of registered features: bit i is the i-th feature of the registry sorted by name.
using FeatureSet = uint64_t;

class Framework {
 public:
  static constexpr std::size_t kMaxFeatures = 64;  // the bits of a FeatureSet

  // ndf.New: the registry, sorted by name. Throws std::invalid_argument for more features than
  // a FeatureSet holds, a feature without an inference, or two features of one name.
  explicit Framework(std::vector<Feature> registry) : registry_(std::move(registry)) {
    std::sort(registry_.begin(), registry_.end(),
              [](const Feature& a, const Feature& b) { return a.name < b.name; });
    if (registry_.size() > kMaxFeatures) {
      throw std::invalid_argument("more than 64 node declared features registered");
    }
    for (std::size_t i = 0; i < registry_.size(); ++i) {
      if (registry_[i].inferForScheduling == nullptr) {
        throw std::invalid_argument("feature \"" + std::string(registry_[i].name) +
                                    "\" has no InferForScheduling");
      }
      if (i > 0 && registry_[i].name == registry_[i - 1].name) {
        throw std::invalid_argument("feature \"" + std::string(registry_[i].name) +
                                    "\" registered twice");
      }
    }
  }

  // The features, sorted by name: a FeatureSet's bit i is registry()[i].
  const std::vector<Feature>& registry() const noexcept { return registry_; }

  // InferForPodScheduling: the features scheduling a pod with `spec` needs on a cluster at
  // `target`. A feature whose MaxVersion is below `target` is not required: every node of a
  // supported skew has it. On a malformed spec: 0, with `error` filled.
  FeatureSet inferForPodScheduling(const Json& spec, const Version& target,
                                   SpecError& error) const {
    FeatureSet reqs = 0;
    for (std::size_t i = 0; i < registry_.size(); ++i) {
      const Feature& f = registry_[i];
      if (f.maxVersion && greaterThan(target, *f.maxVersion)) {
        continue;
      }
      bool required = f.inferForScheduling(spec, error);
      if (!error.empty()) {
        return 0;
      }
      if (required) {
        reqs |= FeatureSet{1} << i;
      }
    }
    return reqs;
  }

  // TryMap: the registered features among `names`, a sorted range of strings (as
  // status.declaredFeatures is); names the registry does not know are ignored. The same sorted
  // merge as upstream's.
  template <typename Names>
  FeatureSet tryMap(const Names& names) const noexcept {
    FeatureSet s = 0;
    auto it = std::begin(names);
    const auto end = std::end(names);
    std::size_t j = 0;
    while (it != end && j < registry_.size()) {
      std::string_view name = *it;
      if (name == registry_[j].name) {
        s |= FeatureSet{1} << j;
        ++it;
        ++j;
      } else if (name < registry_[j].name) {
        ++it;
      } else {
        ++j;
      }
    }
    return s;
  }

  // Unmap: the names of the features in `set`, sorted.
  std::vector<std::string_view> unmap(FeatureSet set) const {
    std::vector<std::string_view> out;
    for (std::size_t i = 0; i < registry_.size(); ++i) {
      if ((set & (FeatureSet{1} << i)) != 0) {
        out.push_back(registry_[i].name);
      }
    }
    return out;
  }

  // bitmap.IsSubset: every feature of `required` is in `available`.
  static constexpr bool isSubset(FeatureSet required, FeatureSet available) noexcept {
    return (required & ~available) == 0;
  }

 private:
  std::vector<Feature> registry_;
};

}  // namespace schedhost::plugins::nodedeclaredfeatures

#endif  // SCHEDHOST_PLUGINS_NODEDECLAREDFEATURES_FRAMEWORK_H
