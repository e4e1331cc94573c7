#include "host/framework/fit_error.h"

#include <algorithm>
#include <map>
#include <vector>

namespace sh {

void Diagnosis::addPluginStatus(const Status& s) {
  if (s.plugin().empty()) {
    return;
  }
  if (s.isRejected()) {
    unschedulablePlugins.insert(s.plugin());
  }
  if (s.code() == SH_PENDING) {
    pendingPlugins.insert(s.plugin());
  }
}

std::string FitError::message() const {
  std::string out = "0/" + std::to_string(numAllNodes) + " nodes are available:";
  if (!diagnosis.preFilterMsg.empty()) {
    out += " " + diagnosis.preFilterMsg + ".";
  } else {
    std::map<std::string, std::size_t> histogram;
    const NodeToStatus& nts = diagnosis.nodeToStatus;
    // An empty reason says nothing: it counts as no reason, as a status without reasons adds
    // nothing to upstream's histogram (FitError.Error), rather than printing "3 ".
    for (const auto& [node, status] : nts.entries()) {
      for (const std::string& r : status.reasons()) {
        if (!r.empty()) {
          ++histogram[r];
        }
      }
    }
    if (nts.size() < numAllNodes) {
      for (const std::string& r : nts.absent().reasons()) {
        if (!r.empty()) {
          histogram[r] += numAllNodes - nts.size();
        }
      }
    }
    std::vector<std::string> parts;
    parts.reserve(histogram.size());
    for (const auto& [reason, count] : histogram) {
      parts.push_back(std::to_string(count) + " " + reason);
    }
    std::sort(parts.begin(), parts.end());
    std::string joined;
    for (const std::string& p : parts) {
      if (!joined.empty()) {
        joined += ", ";
      }
      joined += p;
    }
    if (!joined.empty()) {
      out += " " + joined + ".";
    }
  }
  if (!diagnosis.postFilterMsg.empty()) {
    out += " " + diagnosis.postFilterMsg;
  }
  return out;
}

}  // namespace sh
