// The scheduling queue's view of each profile (queue::QueueProfile), built from its framework.
#pragma once

#include "host/framework/framework.h"
#include "host/queue/queue_profile.h"

namespace sh::cycle {

// One QueueProfile per framework: its QueueSort less-function, its PreEnqueue plugins and the
// plugins whose rejections the queue may requeue. Null frameworks are left out.
// `withExtenders`: every profile also holds the "Extender" pseudo-plugin, woken by any event.
queue::QueueProfiles queueProfiles(const Frameworks& frameworks, bool withExtenders = false);

}  // namespace sh::cycle
