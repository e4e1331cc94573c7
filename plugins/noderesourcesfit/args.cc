// Parsing, defaulting and validation of NodeResourcesFitArgs. Messages follow
// k8s.io/apimachinery's field errors; the host prefixes the args path.
#include "args.h"

#include <schedhost/helpers.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::noderesourcesfit {

namespace {

const std::vector<std::string_view> kStrategies = {"LeastAllocated", "MostAllocated",
                                                   "RequestedToCapacityRatio"};

// Reads an integer member; a non-integer is reported and reads as 0.
int64_t intMember(const Args& obj, const char* key) {
  Args node = obj[key];
  if (node.present() && !node.isInt()) {
    node.error("Invalid value: expected an integer");
    return 0;
  }
  return node.present() ? node.asInt() : 0;
}

std::vector<std::string> stringList(const Args& list) {
  std::vector<std::string> out;
  if (!list.present() || !expectArray(list)) {
    return out;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    Args item = list.at(i);
    if (!item.isString()) {
      item.error("Invalid value: expected a string");
    }
    out.emplace_back(item.asString());
  }
  return out;
}

// metav1validation.ValidateLabelName: one Invalid error per problem.
void validateLabelName(const Args& node, std::string_view value) {
  for (const std::string& msg : qualifiedNameErrors(value)) {
    node.error(invalidValue(quoted(value), msg));
  }
}

void parseIgnored(const Host& host, const Args& args, FitArgs& out) {
  Args resources = args["ignoredResources"];
  std::vector<std::string> names = stringList(resources);
  for (std::size_t i = 0; i < names.size(); ++i) {
    validateLabelName(resources.at(i), names[i]);
    out.ignoredResources.push_back(host.intern(names[i]));
  }
  std::sort(out.ignoredResources.begin(), out.ignoredResources.end());

  Args groups = args["ignoredResourceGroups"];
  out.ignoredResourceGroups = stringList(groups);
  for (std::size_t i = 0; i < out.ignoredResourceGroups.size(); ++i) {
    const std::string& group = out.ignoredResourceGroups[i];
    if (group.find('/') != std::string::npos) {
      groups.at(i).error(invalidValue(quoted(group), "resource group name can't contain '/'"));
    }
    validateLabelName(groups.at(i), group);
  }
}

// resources: defaulted to cpu:1, memory:1 when empty; a weight of 0 becomes 1; then each
// weight must be in (0, 100].
void parseResources(const Host& host, const Args& strategy, FitArgs& out) {
  out.resources = parseResourceSpecs(
      host, strategy["resources"],
      [](const Args& item, const ResourceSpec& spec, const std::vector<ResourceSpec>& /*earlier*/) {
        if (spec.weight <= 0 || spec.weight > 100) {
          errorAt(item, "weight",
                  invalidValue(std::to_string(spec.weight),
                               "resource weight of " + spec.name + " not in valid range (0, 100]"));
        }
      });
}

// validation.validateFunctionShape.
void parseShape(const Args& ratio, FitArgs& out) {
  Args shape = ratio["shape"];
  if (shape.present() && expectArray(shape)) {
    for (std::size_t i = 0; i < shape.size(); ++i) {
      Args point = shape.at(i);
      if (expectObject(point)) {
        rejectUnknownFields(point, {"utilization", "score"});
        out.shape.push_back({intMember(point, "utilization"), intMember(point, "score")});
      }
    }
  }
  if (out.shape.empty()) {
    errorAt(ratio, "shape", requiredValue("at least one point must be specified"));
    return;
  }
  for (std::size_t i = 1; i < out.shape.size(); ++i) {
    if (out.shape[i - 1].utilization >= out.shape[i].utilization) {
      errorAt(shape.at(i), "utilization",
              invalidValue(std::to_string(out.shape[i].utilization),
                           "values must be sorted in increasing order"));
      break;
    }
  }
  for (std::size_t i = 0; i < out.shape.size(); ++i) {
    const ShapePoint& p = out.shape[i];
    if (p.utilization < 0 || p.utilization > 100) {
      errorAt(shape.at(i), "utilization",
              invalidValue(std::to_string(p.utilization), "not in valid range [0, 100]"));
    }
    if (p.score < 0 || p.score > 10) {
      errorAt(shape.at(i), "score",
              invalidValue(std::to_string(p.score), "not in valid range [0, 10]"));
    }
  }
}

void parseStrategy(const Host& host, const Args& args, FitArgs& out) {
  Args strategy = args["scoringStrategy"];
  if (!strategy.present()) {
    // SetDefaults_NodeResourcesFitArgs: LeastAllocated over cpu and memory.
    parseResources(host, strategy, out);
    return;
  }
  if (!expectObject(strategy)) {
    return;
  }
  rejectUnknownFields(strategy, {"type", "resources", "requestedToCapacityRatio"});
  std::string_view type = strategy["type"].asString();
  if (type == kStrategies[0]) {
    out.type = StrategyType::kLeastAllocated;
  } else if (type == kStrategies[1]) {
    out.type = StrategyType::kMostAllocated;
  } else if (type == kStrategies[2]) {
    out.type = StrategyType::kRequestedToCapacityRatio;
  } else {
    errorAt(strategy, "type", unsupportedValue(quoted(type), kStrategies));
  }
  parseResources(host, strategy, out);
  Args ratio = strategy["requestedToCapacityRatio"];
  if (type == kStrategies[2]) {
    if (!ratio.present()) {
      errorAt(strategy, "requestedToCapacityRatio",
              requiredValue("must be specified when type is RequestedToCapacityRatio"));
    } else if (expectObject(ratio)) {
      rejectUnknownFields(ratio, {"shape"});
      parseShape(ratio, out);
    }
  } else if (ratio.present()) {
    ratio.error(forbidden("must be nil when type is not RequestedToCapacityRatio"));
  }
}

}  // namespace

FitArgs parseArgs(const Host& host, const Args& args) {
  FitArgs out;
  if (args.present() && !expectObject(args)) {
    return out;
  }
  rejectUnknownFields(args, {"ignoredResources", "ignoredResourceGroups", "scoringStrategy"});
  parseIgnored(host, args, out);
  parseStrategy(host, args, out);
  return out;
}

}  // namespace schedhost::plugins::noderesourcesfit
