// NodePorts: host-port conflicts (HostPortInfo.CheckConflict semantics), PreFilter Skip, events.
// Cases after upstream node_ports_test.go, our own tables.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::node_ports_test {
namespace {

constexpr char kPorts[] = "NodePorts";
constexpr char kErrReason[] = "node(s) didn't have free ports for the requested pod ports";

struct Port {
  int32_t port;
  std::string protocol;
  std::string ip;
};

PodPtr podWithPorts(const std::string& name, const std::vector<Port>& ports,
                    const std::string& node = "") {
  auto pod = makePod().name(name).uid(name).container("img");
  if (!node.empty()) {
    pod.node(node);
  }
  for (const Port& p : ports) {
    pod.hostPort(p.port, p.protocol, p.ip);
  }
  return pod.obj();
}

struct PortCase {
  std::string name;
  std::vector<Port> wanted;
  std::vector<Port> used;  // by a pod on n1
  bool fits;
};

TEST(NodePortsTest, Filter) {
  std::vector<PortCase> cases = {
      {"nothing in use", {{8080, "TCP", ""}}, {}, true},
      {"same port, protocol and IP",
       {{8080, "UDP", "127.0.0.1"}},
       {{8080, "UDP", "127.0.0.1"}},
       false},
      {"other port", {{8080, "UDP", "127.0.0.1"}}, {{9090, "UDP", "127.0.0.1"}}, true},
      {"other protocol", {{8080, "TCP", "127.0.0.1"}}, {{8080, "UDP", "127.0.0.1"}}, true},
      {"other IP", {{8080, "UDP", "127.0.0.2"}}, {{8080, "UDP", "127.0.0.1"}}, true},
      {"one of several ports",
       {{8000, "UDP", "127.0.0.1"}, {8080, "UDP", "127.0.0.1"}},
       {{8080, "UDP", "127.0.0.1"}},
       false},
      {"wanted 0.0.0.0 takes the port on every IP",
       {{8001, "UDP", "0.0.0.0"}},
       {{8001, "UDP", "127.0.0.1"}},
       false},
      {"an empty IP means 0.0.0.0", {{8001, "TCP", ""}}, {{8001, "TCP", "10.0.0.1"}}, false},
      {"used 0.0.0.0 holds the port on every IP",
       {{8001, "TCP", "127.0.0.1"}},
       {{8001, "TCP", "0.0.0.0"}},
       false},
      {"0.0.0.0 with another protocol",
       {{8001, "UDP", "0.0.0.0"}},
       {{8001, "TCP", "127.0.0.1"}},
       true},
      {"SCTP is a protocol of its own",
       {{8001, "SCTP", "0.0.0.0"}},
       {{8001, "TCP", "0.0.0.0"}},
       true},
  };
  for (const PortCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<PodPtr> placed;
    if (!c.used.empty()) {
      placed.push_back(podWithPorts("placed", c.used, "n1"));
    }
    auto result = evaluate({{kPorts, ""}}, {makeNode().name("n1").obj()}, placed,
                           podWithPorts("p", c.wanted));
    auto status = filterStatus(result, "n1", kPorts);
    if (c.fits) {
      EXPECT_EQ(status.code, "Success");
    } else {
      EXPECT_EQ(status.code, "Unschedulable");
      EXPECT_EQ(status.reasons, std::vector<std::string>{kErrReason});
    }
  }
}

TEST(NodePortsTest, PreFilterSkipsPodsWithoutHostPorts) {
  auto result = evaluate({{kPorts, ""}}, {makeNode().name("n1").obj()},
                         {podWithPorts("placed", {{8080, "TCP", ""}}, "n1")},
                         makePod().name("p").uid("p").container("img").obj());
  EXPECT_EQ(result.preFilter.at(kPorts).code, "Skip");
  EXPECT_EQ(result.selected, "n1");
}

TEST(NodePortsTest, Events) {
  LoadedPlugin plugin(kPorts);
  EXPECT_EQ(registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_POD, SH_ACTION_DELETE, 1}, {SH_RESOURCE_NODE, SH_ACTION_ADD, 0}}));

  PodPtr pod = podWithPorts("p", {{8080, "TCP", ""}});
  struct HintCase {
    std::string name;
    PodPtr deleted;
    sh_queueing_hint want;
  };
  std::vector<HintCase> cases = {
      {"an unscheduled pod", podWithPorts("d", {{8080, "TCP", ""}}), SH_QUEUE_SKIP},
      {"an assigned pod using the port", podWithPorts("d", {{8080, "TCP", ""}}, "n1"), SH_QUEUE},
      {"a nominated pod using the port",
       makePod().name("d").uid("d").hostPort(8080).nominatedNodeName("n1").obj(), SH_QUEUE},
      {"an assigned pod without host ports", podWithPorts("d", {}, "n1"), SH_QUEUE_SKIP},
      {"an assigned pod using another port", podWithPorts("d", {{9090, "TCP", ""}}, "n1"),
       SH_QUEUE_SKIP},
  };
  for (const HintCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_DELETE, c.deleted, nullptr)), c.want);
  }
}

}  // namespace
}  // namespace schedhost::testing::node_ports_test
