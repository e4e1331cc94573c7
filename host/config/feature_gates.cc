#include "host/config/feature_gates.h"

#include <algorithm>
#include <array>
#include <sstream>

#include "host/common/trim.h"

namespace sh::config {

namespace {

constexpr FeatureGateSpec kKnownGates[] = {
#include "host/config/feature_gates_1_36.inc"
};

// The gates schedhost honours at their non-default value:
//   NodeDeclaredFeatures=false: the plugin leaves the default plugin set (default_plugins.cc);
//   SchedulerAsyncPreemption=false: evictions run within PostFilter
//   (cycle::SchedulerOptions::asyncPreemption);
//   NominatedNodeNameForExpectation, OpportunisticBatching = false: what schedhost does in any
//   case (docs/differences-from-upstream.md lists them).
constexpr std::array<std::string_view, 4> kSwitchable = {
    "NodeDeclaredFeatures", "NominatedNodeNameForExpectation", "OpportunisticBatching",
    "SchedulerAsyncPreemption"};

FeatureGates& mutableProcessGates() {
  static FeatureGates gates;
  return gates;
}

const FeatureGateSpec* find(std::string_view name) {
  const auto gates = knownFeatureGates();
  const auto it =
      std::lower_bound(gates.begin(), gates.end(), name,
                       [](const FeatureGateSpec& g, std::string_view n) { return g.name < n; });
  return it != gates.end() && it->name == name ? &*it : nullptr;
}

}  // namespace

std::span<const FeatureGateSpec> knownFeatureGates() { return kKnownGates; }

bool isSwitchable(std::string_view gate) {
  return std::find(kSwitchable.begin(), kSwitchable.end(), gate) != kSwitchable.end();
}

std::optional<FeatureGates> FeatureGates::parse(std::string_view text, std::string& error) {
  FeatureGates out;
  std::stringstream items{std::string(text)};
  std::string item;
  while (std::getline(items, item, ',')) {
    item = std::string(trimmed(item, " \t"));
    if (item.empty()) {
      continue;
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      error = "missing bool value for " + item;
      return std::nullopt;
    }
    const std::string name = std::string(trimmed(item.substr(0, eq), " \t"));
    const std::string valueText = std::string(trimmed(item.substr(eq + 1), " \t"));
    bool value = false;
    // Go's strconv.ParseBool.
    if (valueText == "1" || valueText == "t" || valueText == "T" || valueText == "true" ||
        valueText == "TRUE" || valueText == "True") {
      value = true;
    } else if (valueText == "0" || valueText == "f" || valueText == "F" || valueText == "false" ||
               valueText == "FALSE" || valueText == "False") {
      value = false;
    } else {
      error = "invalid value of " + name + "=" + valueText +
              ", err: strconv.ParseBool: parsing \"" + valueText + "\": invalid syntax";
      return std::nullopt;
    }
    if (name == "AllAlpha" || name == "AllBeta") {
      if (value) {
        error = name + "=true: schedhost does not implement every " +
                (name == "AllAlpha" ? std::string("alpha") : std::string("beta")) +
                " gate of kube-scheduler; set the gates one by one";
        return std::nullopt;
      }
      out.overrides_.emplace_back(name, value);
      continue;
    }
    const FeatureGateSpec* spec = find(name);
    if (spec == nullptr) {
      error = "unrecognized feature gate: " + name;
      return std::nullopt;
    }
    if (spec->lockedToDefault && value != spec->defaultValue) {
      error = "cannot set feature gate " + name + " to " + (value ? "true" : "false") +
              ", feature is locked to " + (spec->defaultValue ? "true" : "false");
      return std::nullopt;
    }
    if (value != spec->defaultValue && !isSwitchable(name)) {
      error = name + "=" + (value ? "true" : "false") + ": schedhost implements " + name +
              " only at its Kubernetes v1.36 default (" + (spec->defaultValue ? "true" : "false") +
              "); it would schedule as if the gate were not set, so it refuses to start";
      return std::nullopt;
    }
    out.overrides_.emplace_back(name, value);
  }
  return out;
}

bool FeatureGates::enabled(std::string_view gate) const {
  for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
    if (it->first == gate) {
      return it->second;
    }
  }
  const FeatureGateSpec* spec = find(gate);
  return spec != nullptr && spec->defaultValue;
}

const FeatureGates& processFeatureGates() { return mutableProcessGates(); }

void setProcessFeatureGates(FeatureGates gates) { mutableProcessGates() = std::move(gates); }

}  // namespace sh::config
