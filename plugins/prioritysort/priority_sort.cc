// PrioritySort: orders the scheduling queue by pod priority, then by the time the pod
// entered the queue.
//
// Extension points: QueueSort.
// Upstream: pkg/scheduler/framework/plugins/queuesort/priority_sort.go (v1.36).
#include <schedhost/plugin.hpp>

namespace schedhost::plugins::prioritysort {

constexpr const char* kName = "PrioritySort";

class PrioritySort : public QueueSortPlugin {
 public:
  // Less(a, b): higher priority first; equal priorities in queue-timestamp order.
  bool less(const sh_queued_pod& a, const sh_queued_pod& b) const noexcept {
    int32_t pa = a.pod->priority;
    int32_t pb = b.pod->priority;
    return pa > pb || (pa == pb && a.timestamp_unix_nanos < b.timestamp_unix_nanos);
  }
};

}  // namespace schedhost::plugins::prioritysort

SCHEDHOST_PLUGIN(schedhost::plugins::prioritysort::PrioritySort,
                 schedhost::plugins::prioritysort::kName, "1.36.0")
