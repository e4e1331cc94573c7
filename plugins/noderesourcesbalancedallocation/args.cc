// Parsing, defaulting and validation of NodeResourcesBalancedAllocationArgs: an empty list
// becomes cpu and memory; a weight of 0 becomes 1; every weight must then be exactly 1 and no
// resource may repeat.
#include "args.h"

#include <schedhost/helpers.hpp>

#include <string>
#include <vector>

namespace schedhost::plugins::noderesourcesbalancedallocation {

BalancedAllocationArgs parseArgs(const Host& host, const Args& args) {
  BalancedAllocationArgs out;
  if (args.present() && !expectObject(args)) {
    return out;
  }
  rejectUnknownFields(args, {"resources"});
  Args list = args["resources"];
  if (list.present() && expectArray(list)) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      Args item = list.at(i);
      if (!expectObject(item)) {
        continue;
      }
      rejectUnknownFields(item, {"name", "weight"});
      std::string name(item["name"].asString());
      Args weightNode = item["weight"];
      int64_t weight = 0;
      if (weightNode.present() && !weightNode.isInt()) {
        weightNode.error("Invalid value: expected an integer");
      } else {
        weight = weightNode.asInt();
      }
      if (weight == 0) {
        weight = 1;
      }
      for (const ResourceSpec& seen : out.resources) {
        if (seen.name == name) {
          errorAt(item, "name", duplicateValue(quoted(name)));
          break;
        }
      }
      if (weight != 1) {
        errorAt(item, "weight", invalidValue(std::to_string(weight), "must be 1"));
      }
      out.resources.push_back({name, host.intern(name), isScalarResourceName(name)});
    }
  }
  if (out.resources.empty()) {
    out.resources.push_back({"cpu", SH_ID_CPU, false});
    out.resources.push_back({"memory", SH_ID_MEMORY, false});
  }
  return out;
}

}  // namespace schedhost::plugins::noderesourcesbalancedallocation
