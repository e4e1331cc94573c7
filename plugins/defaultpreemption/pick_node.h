// Choosing among the preemption candidates (upstream preemption.go:
// pickOneNodeForPreemption): keep the candidates best at each criterion in turn, stop when one is
// left.
//   1. fewest PDB violations
//   2. lowest priority of the most important victim
//   3. lowest sum of (priority + 2^31) over the victims
//   4. fewest victims
//   5. latest start among the highest-priority victims (the earliest such start)
// Still tied: the first candidate in the given order.
#ifndef SCHEDHOST_PLUGINS_DEFAULTPREEMPTION_PICK_NODE_H
#define SCHEDHOST_PLUGINS_DEFAULTPREEMPTION_PICK_NODE_H

#include "victims.h"

#include <cstddef>
#include <vector>

namespace schedhost::plugins::defaultpreemption {

struct Candidate {
  const sh_node_info* node = nullptr;
  Victims victims;  // non-empty, most important first
};

// The index of the chosen candidate; `candidates` must not be empty.
std::size_t pickOneNodeForPreemption(const std::vector<Candidate>& candidates, int64_t now);

// Among the victims of the highest priority, the earliest start time.
int64_t earliestStartOfMostImportant(const Victims& victims, int64_t now);

}  // namespace schedhost::plugins::defaultpreemption

#endif  // SCHEDHOST_PLUGINS_DEFAULTPREEMPTION_PICK_NODE_H
