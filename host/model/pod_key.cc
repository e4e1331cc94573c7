#include "host/model/pod_key.h"

#include "host/model/pod.h"

namespace sh::model {

std::string podKey(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  return key;
}

std::string podKey(const sh_pod& pod) {
  return podKey(std::string_view(pod.namespace_.ptr, pod.namespace_.len),
                std::string_view(pod.name.ptr, pod.name.len));
}

std::string podKey(const Pod& pod) { return podKey(pod.namespaceName(), pod.name()); }

}  // namespace sh::model
