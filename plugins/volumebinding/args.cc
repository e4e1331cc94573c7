// Parsing and validation of VolumeBindingArgs (upstream apis/config/validation:
// ValidateVolumeBindingArgsWithOptions). Messages follow k8s.io/apimachinery's field errors; the
// host prefixes the args path.
#include "args.h"

#include <schedhost/helpers.hpp>

#include <string>

namespace schedhost::plugins::volumebinding {

namespace {

// Go's %#v of the shape ([]config.UtilizationShapePoint), as field.Invalid prints it.
std::string goShape(const Args& shape) {
  std::string out = "[]config.UtilizationShapePoint{";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    Args point = shape.at(i);
    out += (i > 0 ? ", " : "");
    out +=
        "config.UtilizationShapePoint{Utilization:" + std::to_string(point["utilization"].asInt()) +
        ", Score:" + std::to_string(point["score"].asInt()) + "}";
  }
  return out + "}";
}

}  // namespace

VolumeBindingArgs parseArgs(const Args& args) {
  VolumeBindingArgs out;
  if (!args.present() || !expectObject(args)) {
    return out;
  }
  rejectUnknownFields(args, {"bindTimeoutSeconds", "shape"});
  Args timeout = args["bindTimeoutSeconds"];
  if (timeout.present()) {
    if (!timeout.isInt()) {
      timeout.error("Invalid value: expected an integer");
    } else {
      out.bindTimeoutSeconds = timeout.asInt();
      if (out.bindTimeoutSeconds < 0) {
        timeout.error(invalidValue(std::to_string(out.bindTimeoutSeconds),
                                   "invalid BindTimeoutSeconds, should not be a negative value"));
      }
    }
  }
  // With StorageCapacityScoring off, any shape (even an empty list) is refused, so that a
  // configuration does not change meaning when the gate turns on.
  Args shape = args["shape"];
  if (shape.present()) {
    if (!shape.isArray()) {
      shape.error("Invalid value: expected an array");
    } else {
      for (std::size_t i = 0; i < shape.size(); ++i) {
        Args point = shape.at(i);
        if (expectObject(point)) {
          rejectUnknownFields(point, {"utilization", "score"});
        }
      }
      shape.error(invalidValue(goShape(shape),
                               "unexpected field `shape`, remove it or turn on the feature gate "
                               "StorageCapacityScoring"));
    }
  }
  return out;
}

}  // namespace schedhost::plugins::volumebinding
