// The scheduling queue's view of each profile (queue::QueueProfile), built from its framework.
#pragma once

#include "host/framework/framework.h"
#include "host/queue/queue_profile.h"

namespace sh::cycle {

// One QueueProfile per framework: its QueueSort less-function, its PreEnqueue plugins and the
// plugins whose rejections the queue may requeue. Null frameworks are left out.
queue::QueueProfiles queueProfiles(const Frameworks& frameworks);

}  // namespace sh::cycle
