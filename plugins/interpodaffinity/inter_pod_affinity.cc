// InterPodAffinity: construction and registration. See inter_pod_affinity.h for the other
// files.
#include "inter_pod_affinity.h"

#include <schedhost/plugin.hpp>

namespace schedhost::plugins::interpodaffinity {

InterPodAffinity::InterPodAffinity(Host& host, const Args& args)
    : host_(host),
      args_(parseArgs(args)),
      preFilterKey_(host.intern(kPreFilterStateKey)),
      preScoreKey_(host.intern(kPreScoreStateKey)) {}

}  // namespace schedhost::plugins::interpodaffinity

SCHEDHOST_PLUGIN(schedhost::plugins::interpodaffinity::InterPodAffinity,
                 schedhost::plugins::interpodaffinity::kName, "1.36.0")
