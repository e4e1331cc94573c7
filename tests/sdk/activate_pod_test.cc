// schedhost::Cycle::activatePod against hand-built host tables: it calls cycle_activate_pod
// (since 1.1) only when the host's table is of minor 1 or later and large enough to hold the
// slot, so that a plugin built against 1.1 still runs on a 1.0 host.
#include <schedhost/plugin.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace {

std::vector<std::string> gCalls;
// An opaque handle the plugin only passes back; any address will do.
int gCycleObject = 0;
sh_cycle* const kCycle = reinterpret_cast<sh_cycle*>(&gCycleObject);

void recordActivation(sh_cycle* cycle, const char* ns, size_t nsLen, const char* name,
                      size_t nameLen) {
  EXPECT_EQ(cycle, kCycle);
  gCalls.push_back(std::string(ns, nsLen) + "/" + std::string(name, nameLen));
}

// A host table of this minor and size whose cycle_activate_pod records its calls.
sh_host_api hostTable(uint16_t minor, std::size_t size) {
  sh_host_api api{};
  api.struct_size = static_cast<uint32_t>(size);
  api.abi_major = SH_ABI_MAJOR;
  api.abi_minor = minor;
  api.cycle_activate_pod = &recordActivation;
  return api;
}

constexpr std::size_t kSlotEnd = offsetof(sh_host_api, cycle_activate_pod) + sizeof(void*);

TEST(ActivatePodTest, CallsTheHostFromMinorOne) {
  gCalls.clear();
  const sh_host_api api = hostTable(1, sizeof(sh_host_api));
  schedhost::Cycle cycle(&api, kCycle);
  EXPECT_TRUE(cycle.activatePod("ns", "gang-a"));
  EXPECT_EQ(gCalls, std::vector<std::string>{"ns/gang-a"});
}

TEST(ActivatePodTest, DoesNothingOnAnOlderHost) {
  gCalls.clear();
  // A 1.0 host: its table ends before the slot (what follows is not its memory).
  const sh_host_api old = hostTable(0, offsetof(sh_host_api, cycle_activate_pod));
  EXPECT_FALSE(schedhost::Cycle(&old, kCycle).activatePod("ns", "a"));
  // The minor alone, or the size alone, is not enough.
  const sh_host_api oldMinor = hostTable(0, sizeof(sh_host_api));
  EXPECT_FALSE(schedhost::Cycle(&oldMinor, kCycle).activatePod("ns", "a"));
  const sh_host_api small = hostTable(1, kSlotEnd - 1);
  EXPECT_FALSE(schedhost::Cycle(&small, kCycle).activatePod("ns", "a"));
  sh_host_api noSlot = hostTable(1, kSlotEnd);
  noSlot.cycle_activate_pod = nullptr;
  EXPECT_FALSE(schedhost::Cycle(&noSlot, kCycle).activatePod("ns", "a"));
  EXPECT_TRUE(gCalls.empty());
  // Exactly as large as the slot needs: called.
  const sh_host_api exact = hostTable(1, kSlotEnd);
  EXPECT_TRUE(schedhost::Cycle(&exact, kCycle).activatePod("ns", "a"));
  EXPECT_EQ(gCalls, std::vector<std::string>{"ns/a"});
}

TEST(ActivatePodTest, RefusesAnEmptyNamespaceOrName) {
  gCalls.clear();
  const sh_host_api api = hostTable(1, sizeof(sh_host_api));
  schedhost::Cycle cycle(&api, kCycle);
  EXPECT_FALSE(cycle.activatePod("", "a"));
  EXPECT_FALSE(cycle.activatePod("ns", ""));
  EXPECT_TRUE(gCalls.empty());
}

}  // namespace
