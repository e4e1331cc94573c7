#include "gang_rules.h"

namespace coscheduling {

namespace {

// Compares ns + "/" + name of a and of b as strings, without building them.
int compareJoined(std::string_view nsA, std::string_view nameA, std::string_view nsB,
                  std::string_view nameB) noexcept {
  auto at = [](std::string_view ns, std::string_view name, std::size_t i) {
    return i < ns.size() ? ns[i] : i == ns.size() ? '/' : name[i - ns.size() - 1];
  };
  const std::size_t sizeA = nsA.size() + 1 + nameA.size();
  const std::size_t sizeB = nsB.size() + 1 + nameB.size();
  for (std::size_t i = 0; i < sizeA && i < sizeB; ++i) {
    const auto ca = static_cast<unsigned char>(at(nsA, nameA, i));
    const auto cb = static_cast<unsigned char>(at(nsB, nameB, i));
    if (ca != cb) {
      return ca < cb ? -1 : 1;
    }
  }
  return sizeA == sizeB ? 0 : sizeA < sizeB ? -1 : 1;
}

}  // namespace

bool lessQueued(const QueueKey& a, const QueueKey& b) noexcept {
  if (a.priority != b.priority) {
    return a.priority > b.priority;
  }
  if (a.timeNanos != b.timeNanos) {
    return a.timeNanos < b.timeNanos;
  }
  const std::string_view groupA = a.groupName.empty() ? a.podName : a.groupName;
  const std::string_view groupB = b.groupName.empty() ? b.podName : b.groupName;
  if (int c = compareJoined(a.ns, groupA, b.ns, groupB); c != 0) {
    return c < 0;
  }
  return compareJoined(a.ns, a.podName, b.ns, b.podName) < 0;
}

std::string notEnoughSiblings(std::string_view podName, int64_t pods, int64_t minMember) {
  return "pre-filter pod " + std::string(podName) +
         " cannot find enough sibling pods, current pods number: " + std::to_string(pods) +
         ", minMember of group: " + std::to_string(minMember);
}

bool failureRejectsGroup(int64_t minMember, int64_t assigned, int64_t rejectPercentage) noexcept {
  if (assigned >= minMember) {
    return false;
  }
  // (minMember - assigned) / minMember <= rejectPercentage / 100, in integers.
  return (minMember - assigned) * 100 > rejectPercentage * minMember;
}

int64_t waitSeconds(const PodGroupSpec& group, int64_t permitWaitingTimeSeconds) noexcept {
  if (group.scheduleTimeoutSeconds.has_value() && *group.scheduleTimeoutSeconds > 0) {
    return *group.scheduleTimeoutSeconds;
  }
  return permitWaitingTimeSeconds > 0 ? permitWaitingTimeSeconds : 60;
}

std::string_view phaseOf(int64_t scheduled, int64_t minMember) noexcept {
  return scheduled >= minMember ? "Scheduled" : "Scheduling";
}

std::string statusPatch(int64_t scheduled, int64_t minMember) {
  return R"({"status":{"phase":")" + std::string(phaseOf(scheduled, minMember)) +
         R"(","scheduled":)" + std::to_string(scheduled) + "}}";
}

}  // namespace coscheduling
