// DefaultBinder: binds through the host's cluster connector and answers with its result.
// Cases after upstream default_binder_test.go.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/framework/cycle_state.h"
#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::default_binder_test {
namespace {

// A connector that records the bindings it is asked for and answers `result`.
class RecordingServices : public sh::HostServices {
 public:
  sh::Status bindPod(const sh_pod& pod, std::string_view node) override {
    bindings.emplace_back(std::string(pod.namespace_.ptr, pod.namespace_.len) + "/" +
                              std::string(pod.name.ptr, pod.name.len),
                          std::string(node));
    return result;
  }
  bool allowWaitingPod(std::string_view, std::string_view) override { return false; }
  bool rejectWaitingPod(std::string_view, std::string_view, std::string_view) override {
    return false;
  }

  sh::Status result;
  std::vector<std::pair<std::string, std::string>> bindings;
};

TEST(DefaultBinderTest, Bind) {
  RecordingServices services;
  LoadedPlugin plugin("DefaultBinder", "", &services);
  PodPtr pod = makePod().name("foo").inNamespace("ns").uid("foo").obj();
  sh::CycleState cycle;
  sh::Status status =
      plugin.framework().runBind(cycle, pod->view(), "foohost.kubernetes.mydomain.com");
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(services.bindings, (std::vector<std::pair<std::string, std::string>>{
                                   {"ns/foo", "foohost.kubernetes.mydomain.com"}}));
}

TEST(DefaultBinderTest, BindError) {
  RecordingServices services;
  services.result = sh::Status::error("injecting failure for pod foo");
  LoadedPlugin plugin("DefaultBinder", "", &services);
  PodPtr pod = makePod().name("foo").inNamespace("ns").uid("foo").obj();
  sh::CycleState cycle;
  sh::Status status = plugin.framework().runBind(cycle, pod->view(), "n1");
  EXPECT_EQ(status.code(), SH_ERROR);
  EXPECT_TRUE(contains(status.message(), "injecting failure for pod foo"));
}

}  // namespace
}  // namespace schedhost::testing::default_binder_test
