// How many nodes to examine, and which scored node wins (upstream schedule_one.go:
// numFeasibleNodesToFind, selectHost).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "host/framework/framework.h"

namespace sh::cycle {

// upstream's numFeasibleNodesToFind: all nodes below 100; otherwise the profile's (or
// else the global) percentage, 0 meaning adaptive (50 - n/125, at least 5), and never
// fewer than 100 nodes. A percentage of -1 means "not set".
std::size_t numFeasibleNodesToFind(int globalPercentage, int profilePercentage,
                                   std::size_t numAllNodes);

// The index of the winning node: the highest total; ties are broken by a choice seeded
// with `seed` over the list's (deterministic) order, so the same inputs and seed always
// pick the same node whatever the parallelism.
std::size_t selectHost(const std::vector<NodeScore>& scores, uint64_t seed);

// A small, portable, seedable generator (splitmix64).
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace sh::cycle
