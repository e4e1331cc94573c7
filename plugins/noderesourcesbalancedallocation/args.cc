// Parsing, defaulting and validation of NodeResourcesBalancedAllocationArgs: an empty list
// becomes cpu and memory; a weight of 0 becomes 1; every weight must then be exactly 1 and no
// resource may repeat.
#include "args.h"

#include <schedhost/helpers/args.hpp>

#include <string>
#include <vector>

namespace schedhost::plugins::noderesourcesbalancedallocation {

BalancedAllocationArgs parseArgs(const Host& host, const Args& args) {
  BalancedAllocationArgs out;
  if (args.present() && !expectObject(args)) {
    return out;
  }
  rejectUnknownFields(args, {"resources"});
  out.resources = parseResourceSpecs(
      host, args["resources"],
      [](const Args& item, const ResourceSpec& spec, const std::vector<ResourceSpec>& earlier) {
        for (const ResourceSpec& seen : earlier) {
          if (seen.name == spec.name) {
            errorAt(item, "name", duplicateValue(quoted(spec.name)));
            break;
          }
        }
        if (spec.weight != 1) {
          errorAt(item, "weight", invalidValue(std::to_string(spec.weight), "must be 1"));
        }
      });
  return out;
}

}  // namespace schedhost::plugins::noderesourcesbalancedallocation
