// SwapProbe's two builds: the same plugin name at two paths, told apart by version and hash,
// and both resident at once (as they are while a scheduler switches from one to the other).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "host/plugin/loader.h"

namespace {

const std::string kV1 = std::string(SCHEDHOST_SWAP_PROBE_V1_DIR) + "/libswap_probe.so";
const std::string kV2 = std::string(SCHEDHOST_SWAP_PROBE_V2_DIR) + "/libswap_probe.so";

TEST(SwapProbe, TwoBuildsLoadSideBySide) {
  std::shared_ptr<const sh::plugin::LoadedPlugin> v1 = sh::plugin::loadPlugin(kV1);
  std::shared_ptr<const sh::plugin::LoadedPlugin> v2 = sh::plugin::loadPlugin(kV2);
  ASSERT_NE(v1, nullptr);
  ASSERT_NE(v2, nullptr);

  EXPECT_EQ(v1->name, "SwapProbe");
  EXPECT_EQ(v2->name, "SwapProbe");
  EXPECT_EQ(v1->version, "1.0.0");
  EXPECT_EQ(v2->version, "2.0.0");
  EXPECT_NE(v1->path, v2->path);
  EXPECT_EQ(v1->sha256.size(), 64u);
  EXPECT_NE(v1->sha256, v2->sha256);
  EXPECT_EQ(v1->points, v2->points);
  EXPECT_TRUE(v1->warnings.empty());
  EXPECT_TRUE(v2->warnings.empty());

  // Both resident: two libraries, two descriptors, each still reporting its own version.
  EXPECT_NE(v1->library.get(), v2->library.get());
  EXPECT_NE(v1->descriptor, v2->descriptor);
  EXPECT_NE(v1->vtable, v2->vtable);
  EXPECT_STREQ(v1->descriptor->version, "1.0.0");
  EXPECT_STREQ(v2->descriptor->version, "2.0.0");
  EXPECT_STREQ(v1->descriptor->name, "SwapProbe");
  EXPECT_STREQ(v2->descriptor->name, "SwapProbe");

  // Loading a build again reuses its resident library.
  std::shared_ptr<const sh::plugin::LoadedPlugin> again = sh::plugin::loadPlugin(kV1);
  EXPECT_EQ(again->sha256, v1->sha256);
  EXPECT_EQ(again->descriptor, v1->descriptor);
}

}  // namespace
