// PrioritySort: higher priority first, then earlier queue time. Cases after upstream
// priority_sort_test.go.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing {
namespace {

sh_queued_pod Queued(const PodPtr& pod, int64_t timestamp) {
  sh_queued_pod q{};
  q.struct_size = sizeof(sh_queued_pod);
  q.pod = &pod->view();
  q.timestamp_unix_nanos = timestamp;
  return q;
}

TEST(PrioritySortTest, Less) {
  LoadedPlugin plugin("PrioritySort");
  PodPtr low = MakePod().Name("low").UID("low").Priority(10).Obj();
  PodPtr high = MakePod().Name("high").UID("high").Priority(100).Obj();
  PodPtr unset = MakePod().Name("unset").UID("unset").Obj();
  PodPtr negative = MakePod().Name("neg").UID("neg").Priority(-5).Obj();
  struct Case {
    std::string name;
    sh_queued_pod a;
    sh_queued_pod b;
    bool want;
  };
  std::vector<Case> cases = {
      {"p1.priority less than p2.priority", Queued(low, 1), Queued(high, 2), false},
      {"p1.priority greater than p2.priority", Queued(high, 2), Queued(low, 1), true},
      {"equal priority, p1 added to the queue earlier", Queued(low, 1), Queued(low, 2), true},
      {"equal priority, p1 added to the queue later", Queued(low, 2), Queued(low, 1), false},
      {"equal priority and time", Queued(low, 1), Queued(low, 1), false},
      {"an unset priority is 0", Queued(unset, 1), Queued(negative, 0), true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.framework().queueSortLess(c.a, c.b), c.want);
  }
}

}  // namespace
}  // namespace schedhost::testing
