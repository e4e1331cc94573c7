// Parsing, defaulting and validation of InterPodAffinityArgs. Messages follow
// k8s.io/apimachinery's field errors; the host prefixes the args path.
#include "args.h"

#include <schedhost/helpers.hpp>

#include <string>

namespace schedhost::plugins::interpodaffinity {

InterPodAffinityArgs parseArgs(const Args& args) {
  InterPodAffinityArgs out;
  if (args.present() && !expectObject(args)) {
    return out;
  }
  rejectUnknownFields(args, {"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"});

  Args weight = args["hardPodAffinityWeight"];
  if (weight.present()) {
    if (!weight.isInt()) {
      weight.error("Invalid value: expected an integer");
    } else {
      int64_t w = weight.asInt();
      // ValidateHardPodAffinityWeight.
      if (w < 0 || w > 100) {
        weight.error(invalidValue(std::to_string(w), "not in valid range [0, 100]"));
      } else {
        out.hardPodAffinityWeight = static_cast<int32_t>(w);
      }
    }
  }

  Args ignore = args["ignorePreferredTermsOfExistingPods"];
  if (ignore.present()) {
    if (!ignore.isBool()) {
      ignore.error("Invalid value: expected a boolean");
    } else {
      out.ignorePreferredTermsOfExistingPods = ignore.asBool();
    }
  }
  return out;
}

}  // namespace schedhost::plugins::interpodaffinity
