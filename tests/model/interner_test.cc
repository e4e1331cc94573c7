#include "host/model/interner.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace sh::model::interner_test {
namespace {

TEST(InternerTest, WellKnownIdsArePreregistered) {
  Interner& in = interner();
  EXPECT_EQ(in.intern("cpu"), SH_ID_CPU);
  EXPECT_EQ(in.intern("memory"), SH_ID_MEMORY);
  EXPECT_EQ(in.intern("ephemeral-storage"), SH_ID_EPHEMERAL_STORAGE);
  EXPECT_EQ(in.intern("pods"), SH_ID_PODS);
  EXPECT_EQ(in.intern("kubernetes.io/hostname"), SH_ID_HOSTNAME);
  EXPECT_EQ(in.intern("topology.kubernetes.io/zone"), SH_ID_ZONE);
  EXPECT_EQ(in.intern("topology.kubernetes.io/region"), SH_ID_REGION);
  EXPECT_EQ(in.intern(""), SH_ID_EMPTY);
  EXPECT_EQ(in.view(SH_ID_ZONE), "topology.kubernetes.io/zone");
}

TEST(InternerTest, ReservedAndUnknownIdsReadEmpty) {
  Interner in;
  for (sh_id id = 9; id < SH_WELL_KNOWN_END; ++id) {
    EXPECT_EQ(in.view(id), "");
  }
  EXPECT_EQ(in.view(SH_ID_NONE), "");
  EXPECT_EQ(in.view(123456), "");
  EXPECT_NE(in.str(SH_ID_NONE).ptr, nullptr);
}

TEST(InternerTest, DynamicIdsStartAt16AndAreStable) {
  Interner in;
  sh_id a = in.intern("app");
  EXPECT_EQ(a, SH_WELL_KNOWN_END);
  EXPECT_EQ(in.intern("app"), a);
  EXPECT_EQ(in.find("app"), a);
  EXPECT_EQ(in.find("never-seen"), SH_ID_NONE);
  sh_str s = in.str(a);
  for (int i = 0; i < 20000; ++i) {
    in.intern("filler-" + std::to_string(i));  // forces new chunks and blocks
  }
  EXPECT_EQ(in.str(a).ptr, s.ptr);  // bytes never move
  EXPECT_EQ(std::string_view(s.ptr, s.len), "app");
  EXPECT_EQ(s.ptr[s.len], '\0');
}

TEST(InternerTest, LargeStrings) {
  Interner in;
  std::string big(100000, 'x');
  sh_id id = in.intern(big);
  EXPECT_EQ(in.view(id), big);
}

TEST(InternerTest, ConcurrentInternAgrees) {
  Interner in;
  constexpr int kThreads = 4;
  constexpr int kStrings = 5000;
  std::vector<std::vector<sh_id>> ids(kThreads, std::vector<sh_id>(kStrings));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kStrings; ++i) {
        int k = (i * (t + 1)) % kStrings;
        ids[t][k] = in.intern("key-" + std::to_string(k));
        EXPECT_EQ(in.view(ids[t][k]), "key-" + std::to_string(k));
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  for (int t = 1; t < kThreads; ++t) {
    for (int i = 0; i < kStrings; ++i) {
      if (ids[t][i] != 0 && ids[0][i] != 0) {
        EXPECT_EQ(ids[t][i], ids[0][i]);
      }
    }
  }
  EXPECT_EQ(in.size(), SH_WELL_KNOWN_END + kStrings);
}

}  // namespace
}  // namespace sh::model::interner_test
