// Parsing and validation of PodTopologySpreadArgs (apis/config/validation
// ValidatePodTopologySpreadArgs). Messages follow k8s.io/apimachinery's field errors; the host
// prefixes the args path.
#include "args.h"

#include <schedhost/helpers.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

namespace {

constexpr std::string_view kSystem = "System";
constexpr std::string_view kList = "List";
constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";

// v1.NodeInclusionPolicy: any string is accepted; only "Honor" honours the policy.
int32_t policyOf(const Args& node) {
  if (!node.present()) {
    return SH_POLICY_UNSET;
  }
  return node.asString() == "Honor" ? SH_POLICY_HONOR : SH_POLICY_IGNORE;
}

std::vector<DefaultConstraint> systemDefaults() {
  DefaultConstraint hostname;
  hostname.maxSkew = 3;
  hostname.topologyKey = SH_ID_HOSTNAME;
  hostname.whenUnsatisfiable = SH_SCHEDULE_ANYWAY;
  DefaultConstraint zone;
  zone.maxSkew = 5;
  zone.topologyKey = SH_ID_ZONE;
  zone.whenUnsatisfiable = SH_SCHEDULE_ANYWAY;
  return {hostname, zone};
}

}  // namespace

PodTopologySpreadArgs parseArgs(const Host& host, const Args& args) {
  PodTopologySpreadArgs out;
  if (!args.present()) {
    out.defaultConstraints = systemDefaults();
    return out;
  }
  if (!expectObject(args)) {
    return out;
  }
  rejectUnknownFields(args, {"defaultConstraints", "defaultingType"});

  Args list = args["defaultConstraints"];
  std::vector<DefaultConstraint> given;
  std::vector<std::pair<std::string, std::string>> seen;  // (topologyKey, whenUnsatisfiable)
  if (list.present() && expectArray(list)) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      Args c = list.at(i);
      if (!expectObject(c)) {
        continue;
      }
      rejectUnknownFields(
          c, {"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains",
              "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"});
      DefaultConstraint d;
      Args maxSkew = c["maxSkew"];
      if (maxSkew.present() && !maxSkew.isInt()) {
        maxSkew.error("Invalid value: expected an integer");
      } else {
        d.maxSkew = static_cast<int32_t>(maxSkew.asInt());
        if (d.maxSkew <= 0) {
          errorAt(c, "maxSkew", invalidValue(std::to_string(d.maxSkew), "not in valid range"));
        }
      }
      std::string key(c["topologyKey"].asString());
      if (key.empty()) {
        errorAt(c, "topologyKey", requiredValue("can not be empty"));
      } else {
        for (const std::string& e : qualifiedNameErrors(key)) {
          c["topologyKey"].error(invalidValue(quoted(key), e));
        }
      }
      d.topologyKey = host.intern(key);
      std::string when(c["whenUnsatisfiable"].asString());
      if (when.empty()) {
        errorAt(c, "whenUnsatisfiable", requiredValue("can not be empty"));
      } else if (when != kDoNotSchedule && when != kScheduleAnyway) {
        c["whenUnsatisfiable"].error(
            unsupportedValue(quoted(when), {kDoNotSchedule, kScheduleAnyway}));
      }
      d.whenUnsatisfiable = when == kScheduleAnyway ? SH_SCHEDULE_ANYWAY : SH_DO_NOT_SCHEDULE;
      if (c["labelSelector"].present()) {
        c["labelSelector"].error(
            forbidden("constraint must not define a selector, as they deduced for each pod"));
      }
      Args minDomains = c["minDomains"];
      if (minDomains.present()) {
        d.minDomains = static_cast<int32_t>(minDomains.asInt());
      }
      d.nodeAffinityPolicy = policyOf(c["nodeAffinityPolicy"]);
      d.nodeTaintsPolicy = policyOf(c["nodeTaintsPolicy"]);
      Args keys = c["matchLabelKeys"];
      if (keys.present() && expectArray(keys)) {
        for (std::size_t k = 0; k < keys.size(); ++k) {
          d.matchLabelKeys.emplace_back(keys.at(k).asString());
        }
      }
      for (const auto& [otherKey, otherWhen] : seen) {
        if (otherKey == key && otherWhen == when) {
          c.error(duplicateValue(quoted("{" + key + ", " + when + "}")));
          break;
        }
      }
      seen.emplace_back(key, when);
      given.push_back(std::move(d));
    }
  }

  Args typeNode = args["defaultingType"];
  std::string_view type = typeNode.present() ? typeNode.asString() : kSystem;
  if (type != kSystem && type != kList) {
    errorAt(args, "defaultingType", unsupportedValue(quoted(type), {kSystem, kList}));
  } else if (type == kSystem && !given.empty()) {
    errorAt(args, "defaultingType",
            invalidValue(quoted(type), "when .defaultConstraints are not empty"));
  }
  out.systemDefaulted = type == kSystem;
  out.defaultConstraints = out.systemDefaulted ? systemDefaults() : std::move(given);
  return out;
}

}  // namespace schedhost::plugins::podtopologyspread
