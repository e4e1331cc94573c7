// The few strings the scheduler's cycles build from a pod view: an owned copy of a view
// string, and the "namespace/name" key events and logs name a pod by.
#pragma once

#include <string>

#include <schedhost/plugin.h>

#include "host/model/pod_key.h"

namespace sh::cycle {

inline std::string str(sh_str s) { return std::string(s.ptr, s.len); }

using model::podKey;

}  // namespace sh::cycle
