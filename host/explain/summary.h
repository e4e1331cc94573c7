// The terminal summary of an Explanation: what a person reads in ten seconds — the verdict,
// which plugins rejected how many nodes and why (grouped), the best nodes and why they won,
// what changed since the previous attempt, and the changes that would make the pod fit.
#pragma once

#include <string>

#include "host/explain/explanation.h"

namespace sh::explain {

struct SummaryOptions {
  std::size_t maxNodeNames = 3;  // names shown per group before "and N more"
  std::size_t maxBest = 3;       // best nodes shown
};

std::string summary(const Explanation& e, const SummaryOptions& options = {});

}  // namespace sh::explain
