// PrioritySort: higher priority first, then earlier queue time. Cases after upstream
// priority_sort_test.go.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::priority_sort_test {
namespace {

sh_queued_pod queued(const PodPtr& pod, int64_t timestamp) {
  sh_queued_pod q{};
  q.struct_size = sizeof(sh_queued_pod);
  q.pod = &pod->view();
  q.timestamp_unix_nanos = timestamp;
  return q;
}

TEST(PrioritySortTest, Less) {
  LoadedPlugin plugin("PrioritySort");
  PodPtr low = makePod().name("low").uid("low").priority(10).obj();
  PodPtr high = makePod().name("high").uid("high").priority(100).obj();
  PodPtr unset = makePod().name("unset").uid("unset").obj();
  PodPtr negative = makePod().name("neg").uid("neg").priority(-5).obj();
  struct Case {
    std::string name;
    sh_queued_pod a;
    sh_queued_pod b;
    bool want;
  };
  std::vector<Case> cases = {
      {"p1.priority less than p2.priority", queued(low, 1), queued(high, 2), false},
      {"p1.priority greater than p2.priority", queued(high, 2), queued(low, 1), true},
      {"equal priority, p1 added to the queue earlier", queued(low, 1), queued(low, 2), true},
      {"equal priority, p1 added to the queue later", queued(low, 2), queued(low, 1), false},
      {"equal priority and time", queued(low, 1), queued(low, 1), false},
      {"an unset priority is 0", queued(unset, 1), queued(negative, 0), true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.framework().queueSortLess(c.a, c.b), c.want);
  }
}

}  // namespace
}  // namespace schedhost::testing::priority_sort_test
