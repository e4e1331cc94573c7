// A pod's key: "namespace/name", as the queue, the cache's callers, the cluster store, events
// and logs name a pod (upstream's GetPodFullName / cache.MetaNamespaceKeyFunc).
#pragma once

#include <string>
#include <string_view>

#include <schedhost/plugin.h>

namespace sh::model {

class Pod;

std::string podKey(std::string_view ns, std::string_view name);
std::string podKey(const sh_pod& pod);
std::string podKey(const Pod& pod);

}  // namespace sh::model
