#include "args.h"

namespace coscheduling {

namespace {

std::string invalid(int64_t value, const char* detail) {
  return "Invalid value: " + std::to_string(value) + ": " + detail;
}

}  // namespace

std::vector<ArgsError> validate(const CoschedulingArgs& args) {
  std::vector<ArgsError> errors;
  // Upstream's wording, "greater than 0", although 0 itself is accepted.
  if (args.permitWaitingTimeSeconds < 0) {
    errors.push_back({"permitWaitingTimeSeconds",
                      invalid(args.permitWaitingTimeSeconds, "must be greater than 0")});
  }
  if (args.podGroupBackoffSeconds < 0) {
    errors.push_back(
        {"podGroupBackoffSeconds", invalid(args.podGroupBackoffSeconds, "must be greater than 0")});
  }
  if (args.podGroupRejectPercentage < 0 || args.podGroupRejectPercentage > 100) {
    errors.push_back({"podGroupRejectPercentage",
                      invalid(args.podGroupRejectPercentage, "must be between 0 and 100")});
  }
  return errors;
}

}  // namespace coscheduling
