#include "pick_node.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>

namespace schedhost::plugins::defaultpreemption {

int64_t earliestStartOfMostImportant(const Victims& victims, int64_t now) {
  const std::vector<const sh_pod*>& pods = victims.pods;
  int32_t maxPriority = pods[0]->priority;
  int64_t earliest = startTime(*pods[0], now);
  for (const sh_pod* p : pods) {
    if (p->priority == maxPriority) {
      earliest = std::min(earliest, startTime(*p, now));
    } else if (p->priority > maxPriority) {
      maxPriority = p->priority;
      earliest = startTime(*p, now);
    }
  }
  return earliest;
}

std::size_t pickOneNodeForPreemption(const std::vector<Candidate>& candidates, int64_t now) {
  // Each criterion is a score; higher is better.
  const std::function<int64_t(const Candidate&)> criteria[] = {
      [](const Candidate& c) { return -c.victims.numPdbViolations; },
      [](const Candidate& c) { return -static_cast<int64_t>(c.victims.pods[0]->priority); },
      [](const Candidate& c) {
        int64_t sum = 0;
        for (const sh_pod* p : c.victims.pods) {
          // Shifted by 2^31 so that every term is >= 0: a few negative-priority victims do
          // not beat fewer victims of the same priority.
          sum += static_cast<int64_t>(p->priority) + (int64_t{1} << 31);
        }
        return -sum;
      },
      [](const Candidate& c) { return -static_cast<int64_t>(c.victims.pods.size()); },
      [now](const Candidate& c) { return earliestStartOfMostImportant(c.victims, now); },
  };
  std::vector<std::size_t> remaining(candidates.size());
  for (std::size_t i = 0; i < remaining.size(); ++i) {
    remaining[i] = i;
  }
  for (const auto& score : criteria) {
    std::vector<std::size_t> best;
    int64_t bestScore = std::numeric_limits<int64_t>::min();
    for (std::size_t i : remaining) {
      int64_t s = score(candidates[i]);
      if (s > bestScore) {
        bestScore = s;
        best.clear();
      }
      if (s == bestScore) {
        best.push_back(i);
      }
    }
    if (best.size() == 1) {
      return best[0];
    }
    remaining = std::move(best);
  }
  return remaining[0];
}

}  // namespace schedhost::plugins::defaultpreemption
