#include "host/model/image_states.h"

#include <gtest/gtest.h>

#include "host/model/interner.h"
#include "host/model/node_info.h"
#include "host/model/testing/wrappers.h"

namespace sh::model {
namespace {

using testing::MakeNode;

TEST(ImageStatesTest, NormalizedImageName) {
  EXPECT_EQ(normalized_image_name("nginx"), "nginx:latest");
  EXPECT_EQ(normalized_image_name("nginx:1.25"), "nginx:1.25");
  EXPECT_EQ(normalized_image_name("localhost:5000/app"), "localhost:5000/app:latest");
  EXPECT_EQ(normalized_image_name("localhost:5000/app:v1"), "localhost:5000/app:v1");
  EXPECT_EQ(normalized_image_name("app@sha256:0123"), "app@sha256:0123");
  EXPECT_EQ(normalized_image_name("gcr.io/a/b"), "gcr.io/a/b:latest");
  EXPECT_EQ(normalized_image_name(""), ":latest");  // as upstream
}

TEST(ImageStatesTest, CountsNodesPerImageName) {
  constexpr int64_t kMi = 1024 * 1024;
  NodeInfo a(
      MakeNode().Name("a").Images({{"nginx:latest", 500 * kMi}, {"redis:7", 10 * kMi}}).Obj());
  NodeInfo b(MakeNode().Name("b").Image({"nginx:latest", "nginx@sha256:1"}, 400 * kMi).Obj());
  NodeInfo c(MakeNode().Name("c").Obj());
  NodeInfo empty;  // no node: skipped
  NodeInfo* infos[] = {&a, &b, &c, &empty};
  compute_image_states(infos);

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
  auto node = MakeNode().Name("a").Images({{"x:1", 5}, {"x:1", 6}}).Obj();
  const sh_node* nodes[] = {&node->view()};
  ImageSummaries all = summarize_images(nodes);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all.begin()->second.num_nodes, 1u);
  EXPECT_EQ(image_states_for(node->view(), all).size(), 1u);
}

}  // namespace
}  // namespace sh::model
