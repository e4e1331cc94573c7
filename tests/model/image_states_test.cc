#include "host/model/image_states.h"

#include <gtest/gtest.h>

#include "host/model/interner.h"
#include "host/model/node_info.h"
#include "host/model/testing/wrappers.h"

namespace sh::model::image_states_test {
namespace {

using testing::makeNode;

TEST(ImageStatesTest, NormalizedImageName) {
  EXPECT_EQ(normalizedImageName("nginx"), "nginx:latest");
  EXPECT_EQ(normalizedImageName("nginx:1.25"), "nginx:1.25");
  EXPECT_EQ(normalizedImageName("localhost:5000/app"), "localhost:5000/app:latest");
  EXPECT_EQ(normalizedImageName("localhost:5000/app:v1"), "localhost:5000/app:v1");
  EXPECT_EQ(normalizedImageName("app@sha256:0123"), "app@sha256:0123");
  EXPECT_EQ(normalizedImageName("gcr.io/a/b"), "gcr.io/a/b:latest");
  EXPECT_EQ(normalizedImageName(""), ":latest");  // as upstream
}

TEST(ImageStatesTest, CountsNodesPerImageName) {
  constexpr int64_t kMi = 1024 * 1024;
  NodeInfo a(
      makeNode().name("a").images({{"nginx:latest", 500 * kMi}, {"redis:7", 10 * kMi}}).obj());
  NodeInfo b(makeNode().name("b").image({"nginx:latest", "nginx@sha256:1"}, 400 * kMi).obj());
  NodeInfo c(makeNode().name("c").obj());
  NodeInfo empty;  // no node: skipped
  NodeInfo* infos[] = {&a, &b, &c, &empty};
  computeImageStates(infos);

  sh_id nginx = intern("nginx:latest");
  const sh_node_info& va = a.view();
  ASSERT_EQ(va.image_state_count, 2u);
  EXPECT_LT(va.image_states[0].name, va.image_states[1].name);
  for (uint32_t i = 0; i < va.image_state_count; ++i) {
    if (va.image_states[i].name == nginx) {
      EXPECT_EQ(va.image_states[i].num_nodes, 2u);
      EXPECT_EQ(va.image_states[i].size_bytes, 500 * kMi);  // first node's size
    } else {
      EXPECT_EQ(va.image_states[i].num_nodes, 1u);
    }
  }
  ASSERT_EQ(b.view().image_state_count, 2u);
  EXPECT_EQ(c.view().image_state_count, 0u);
  EXPECT_EQ(empty.view().image_state_count, 0u);
}

TEST(ImageStatesTest, DuplicateNamesOnOneNodeCountOnce) {
  auto node = makeNode().name("a").images({{"x:1", 5}, {"x:1", 6}}).obj();
  const sh_node* nodes[] = {&node->view()};
  ImageSummaries all = summarizeImages(nodes);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all.begin()->second.numNodes, 1u);
  EXPECT_EQ(imageStatesFor(node->view(), all).size(), 1u);
}

}  // namespace
}  // namespace sh::model::image_states_test
