// The features of nodedeclaredfeatures/features (v0.36.2), one section each, upstream's
// package named above it.
#include "features.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace schedhost::plugins::nodedeclaredfeatures {
namespace {

// Whether `node` is absent or JSON null, as Go's decoding leaves a field it never saw; a
// present node of another type than `type` fills `error` (`field` names it) and answers false.
bool absentOr(const Json& node, sh_args_type type, std::string field, const char* expected,
              SpecError& error) {
  if (node.isNull() || node.type() == type) {
    return true;
  }
  error = SpecError{std::move(field), expected};
  return false;
}

std::string at(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

// restartallcontainers --------------------------------------------------------------------
constexpr std::string_view kActionRestartAllContainers = "RestartAllContainers";

// Whether a container of `list` ("containers", "initContainers") has a restart rule with the
// action RestartAllContainers.
bool restartsAllContainers(const Json& spec, std::string_view list, SpecError& error) {
  const std::string path = "spec." + std::string(list);
  Json containers = spec[list];
  if (!absentOr(containers, SH_ARGS_ARRAY, path, "an array", error)) {
    return false;
  }
  for (std::size_t i = 0; i < containers.size(); ++i) {
    Json c = containers.at(i);
    if (!absentOr(c, SH_ARGS_OBJECT, at(path, i), "an object", error)) {
      return false;
    }
    Json rules = c["restartPolicyRules"];
    if (!absentOr(rules, SH_ARGS_ARRAY, at(path, i) + ".restartPolicyRules", "an array", error)) {
      return false;
    }
    for (std::size_t j = 0; j < rules.size(); ++j) {
      const std::string rulePath = at(at(path, i) + ".restartPolicyRules", j);
      Json rule = rules.at(j);
      if (!absentOr(rule, SH_ARGS_OBJECT, rulePath, "an object", error)) {
        return false;
      }
      Json action = rule["action"];
      if (!absentOr(action, SH_ARGS_STRING, rulePath + ".action", "a string", error)) {
        return false;
      }
      if (action.asString() == kActionRestartAllContainers) {
        return true;
      }
    }
  }
  return false;
}

bool inferRestartAllContainers(const Json& spec, SpecError& error) {
  return restartsAllContainers(spec, "containers", error) ||
         (error.empty() && restartsAllContainers(spec, "initContainers", error));
}

// usernamespaceshostnetwork ---------------------------------------------------------------
// A pod needs the feature when it uses both the host network and a user namespace.
bool inferUserNamespacesHostNetwork(const Json& spec, SpecError& error) {
  Json hostNetwork = spec["hostNetwork"];
  Json hostUsers = spec["hostUsers"];
  if (!absentOr(hostNetwork, SH_ARGS_BOOL, "spec.hostNetwork", "a boolean", error) ||
      !absentOr(hostUsers, SH_ARGS_BOOL, "spec.hostUsers", "a boolean", error)) {
    return false;
  }
  return hostNetwork.asBool() && hostUsers.isBool() && !hostUsers.asBool();
}

// extendwebsocketstokubelet, and inplacepodresize's PodLevelResourcesResize and
// NonSidecarInitContainerResize: they matter to pod updates (or not at all), never to
// scheduling.
bool notForScheduling(const Json& /*spec*/, SpecError& /*error*/) { return false; }

}  // namespace

// NodeDeclaredFeatures::infer answers "none" without these inferences for a pod whose view
// flags neither spec.hostUsers nor a container's restartPolicyRules (sh_pod.spec_fields): a
// feature that reads another field needs a flag of its own there.
std::vector<Feature> allFeatures() {
  return {
      {"RestartAllContainersOnContainerExits", &inferRestartAllContainers, std::nullopt},
      {"InPlacePodLevelResourcesVerticalScaling", &notForScheduling, std::nullopt},
      {"ExtendWebSocketsToKubelet", &notForScheduling, std::nullopt},
      {"InPlacePodVerticalScalingInitContainers", &notForScheduling, std::nullopt},
      {"UserNamespacesHostNetworkSupport", &inferUserNamespacesHostNetwork, std::nullopt},
  };
}

}  // namespace schedhost::plugins::nodedeclaredfeatures
