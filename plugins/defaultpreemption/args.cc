// Parsing, defaulting and validation of DefaultPreemptionArgs. Messages follow
// k8s.io/apimachinery's field errors; the host prefixes the args path.
#include "args.h"

#include <schedhost/helpers.hpp>

#include <limits>
#include <string>

namespace schedhost::plugins::defaultpreemption {
namespace {

// Reads an int32 field; false when it is present but not an integer of that range.
bool readInt32(const Args& field, int32_t& out) {
  if (!field.present()) {
    return true;
  }
  if (!field.isInt()) {
    field.error("Invalid value: expected an integer");
    return false;
  }
  int64_t v = field.asInt();
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    field.error(invalidValue(std::to_string(v), "must fit in a 32-bit integer"));
    return false;
  }
  out = static_cast<int32_t>(v);
  return true;
}

}  // namespace

DefaultPreemptionArgs parseArgs(const Args& args) {
  DefaultPreemptionArgs out;
  if (args.present() && !expectObject(args)) {
    return out;
  }
  rejectUnknownFields(args, {"minCandidateNodesPercentage", "minCandidateNodesAbsolute"});
  Args percentage = args["minCandidateNodesPercentage"];
  Args absolute = args["minCandidateNodesAbsolute"];
  bool okPercentage = readInt32(percentage, out.minCandidateNodesPercentage);
  bool okAbsolute = readInt32(absolute, out.minCandidateNodesAbsolute);
  if (okPercentage &&
      (out.minCandidateNodesPercentage < 0 || out.minCandidateNodesPercentage > 100)) {
    errorAt(args, "minCandidateNodesPercentage",
            invalidValue(std::to_string(out.minCandidateNodesPercentage),
                         "not in valid range [0, 100]"));
    okPercentage = false;
  }
  if (okAbsolute && out.minCandidateNodesAbsolute < 0) {
    errorAt(
        args, "minCandidateNodesAbsolute",
        invalidValue(std::to_string(out.minCandidateNodesAbsolute), "not in valid range [0, inf)"));
    okAbsolute = false;
  }
  if (okPercentage && okAbsolute && out.minCandidateNodesPercentage == 0 &&
      out.minCandidateNodesAbsolute == 0) {
    errorAt(args, "minCandidateNodesPercentage",
            invalidValue("0", "cannot be zero at the same time as minCandidateNodesAbsolute"));
    errorAt(args, "minCandidateNodesAbsolute",
            invalidValue("0", "cannot be zero at the same time as minCandidateNodesPercentage"));
  }
  return out;
}

int32_t numCandidates(const DefaultPreemptionArgs& args, int32_t numNodes) {
  int64_t n = static_cast<int64_t>(numNodes) * args.minCandidateNodesPercentage / 100;
  if (n < args.minCandidateNodesAbsolute) {
    n = args.minCandidateNodesAbsolute;
  }
  if (n > numNodes) {
    n = numNodes;
  }
  return static_cast<int32_t>(n);
}

}  // namespace schedhost::plugins::defaultpreemption
