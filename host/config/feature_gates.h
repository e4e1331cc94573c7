// kube-scheduler's feature gates (--feature-gates): upstream's names and 1.36 defaults, and
// which of them switch something in schedhost.
//
// A gate set to its 1.36 default changes nothing and is accepted. A gate set otherwise is
// honoured when schedhost implements the other behaviour (the gate's `switchable` entry) and
// refused, with a message naming it, when it does not: a scheduler that ignored it would
// decide differently from the kube-scheduler the operator configured. Names kube-scheduler
// does not know are an error, as upstream's "unrecognized feature gate".
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sh::config {

struct FeatureGateSpec {
  std::string_view name;
  bool defaultValue;       // in Kubernetes v1.36
  bool lockedToDefault;    // upstream refuses any other value
  std::string_view stage;  // Alpha, Beta, GA or Deprecated
};

// Every gate kube-scheduler v1.36 accepts, sorted by name.
std::span<const FeatureGateSpec> knownFeatureGates();
// The gates whose non-default value schedhost implements.
bool isSwitchable(std::string_view gate);

class FeatureGates {
 public:
  // "Name=true,Other=false" as component-base's --feature-gates takes it. nullopt with `error`
  // set to upstream's message ("unrecognized feature gate: Foo") or schedhost's refusal.
  static std::optional<FeatureGates> parse(std::string_view text, std::string& error);

  bool enabled(std::string_view gate) const;
  // The gates set, in the order written, with their values.
  const std::vector<std::pair<std::string, bool>>& overrides() const { return overrides_; }

 private:
  std::vector<std::pair<std::string, bool>> overrides_;
};

// The gates of this process: set once at start, before any configuration is read.
const FeatureGates& processFeatureGates();
void setProcessFeatureGates(FeatureGates gates);

}  // namespace sh::config
