// VolumeBinding: construction, PreScore and Score, and registration (upstream
// volume_binding.go: New, PreScore, Score).
#include "volume_binding.h"

#include <schedhost/plugin.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace schedhost::plugins::volumebinding {

static_assert(std::is_base_of_v<PreFilterPlugin, VolumeBinding>);
static_assert(std::is_base_of_v<FilterPlugin, VolumeBinding>);
static_assert(std::is_base_of_v<ReservePlugin, VolumeBinding>);
static_assert(std::is_base_of_v<PreBindPlugin, VolumeBinding>);

VolumeBinding::VolumeBinding(Host& host, const Args& args)
    : host_(host),
      args_(parseArgs(args)),
      stateKey_(host.intern(kName)),
      volumes_(std::make_unique<PvCache>(host)) {
  if (host.api()->abi_minor < 3 || !host.servesObjects()) {
    // A pod's volumes (ABI 1.3) and the storage objects (ABI 1.2) are what this plugin decides
    // on: without them every pod would pass unseen.
    throw std::runtime_error(
        "VolumeBinding needs a host of ABI 1.3 or later (pod volumes and declared kinds); this "
        "host is 1." +
        std::to_string(host.api()->abi_minor));
  }
}

CycleData* VolumeBinding::state(const Cycle& cycle) const noexcept {
  return cycle.read<CycleData>(stateKey_);
}

// StorageCapacityScoring is alpha and off in v1.36: there is no scorer, so PreScore skips Score
// for every pod and Score (never called then) answers 0, as upstream with a nil scorer.
Status VolumeBinding::preScore(Cycle& /*cycle*/, const sh_pod& /*pod*/,
                               const sh_node_info* const* /*nodes*/, std::size_t /*count*/) {
  return Status::skip();
}

Status VolumeBinding::score(Cycle& /*cycle*/, const sh_pod& /*pod*/,
                            const sh_node_info& /*nodeInfo*/, int64_t& score) {
  score = 0;
  return {};
}

}  // namespace schedhost::plugins::volumebinding

SCHEDHOST_PLUGIN(schedhost::plugins::volumebinding::VolumeBinding,
                 schedhost::plugins::volumebinding::kName, "1.36.0")
