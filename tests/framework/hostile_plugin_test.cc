// What the host does about plugins that misbehave (hostile/): invalid arguments to host
// services are refused and counted, an oversized event registration is reported, a crash names
// the plugin and its extension point, and a call that does not return is reported by the
// watchdog.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "host/cache/snapshot.h"
#include "host/config/args_tree.h"
#include "host/config/diagnostics.h"
#include "host/framework/framework.h"
#include "host/framework/host_services.h"
#include "host/framework/plugin_call.h"
#include "host/metrics/scheduler_metrics.h"
#include "host/model/testing/wrappers.h"
#include "host/plugin/registry.h"

namespace sh::hostile_plugin_test {
namespace {

using model::testing::makeNode;
using model::testing::makePod;
using ::testing::HasSubstr;

// Log lines, while it lives, go to a string instead of stderr.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_);
    sink->set_pattern("%l %v");
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(std::move(logger));
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::string text() const { return stream_.str(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream stream_;
};

class HostilePluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<plugin::ScanError> errors;
    registry_.indexDirs({SCHEDHOST_HOSTILE_PLUGIN_DIR}, errors);
    ASSERT_TRUE(errors.empty()) << errors.front().message;
    snapshot_ = cache::buildSnapshot(
        {makeNode().name("n1").obj(), makeNode().name("n2").obj(), makeNode().name("n3").obj()},
        {});
    cycle_.snapshot = snapshot_.get();
    pod_ = makePod().name("p").uid("p").obj();
  }

  std::shared_ptr<PluginInstance> create(const std::string& name, const std::string& args) {
    auto lib = registry_.load(name);
    EXPECT_NE(lib, nullptr) << name;
    std::string err;
    auto argNode = config::ArgNode::fromJsonText(args, "args", {}, &err);
    EXPECT_TRUE(argNode) << err;
    args_.push_back(std::make_shared<config::ArgNode>(std::move(*argNode)));
    config::Diagnostics diags;
    auto inst = PluginInstance::create(lib, *args_.back(), &services_, diags);
    EXPECT_NE(inst, nullptr) << diags.str();
    return inst;
  }

  // `inst` at every point it implements.
  std::shared_ptr<Framework> build(const PluginPtr& inst) {
    Framework::Config config;
    config.profileName = "hostile";
    for (ExtensionPoint p : kAllExtensionPoints) {
      if ((inst->points() & pointBit(p)) != 0) {
        config.plugins[indexOf(p)].push_back(inst);
      }
    }
    auto fw = std::make_shared<Framework>(std::move(config));
    cycle_.framework = fw.get();
    return fw;
  }

  const sh_node_info& node(std::size_t i) const { return *snapshot_->views[i]; }

  plugin::PluginRegistry registry_;
  NullHostServices services_;
  std::vector<std::shared_ptr<config::ArgNode>> args_;
  std::unique_ptr<cache::Snapshot> snapshot_;
  CycleState cycle_;
  std::shared_ptr<const model::Pod> pod_;
};

TEST_F(HostilePluginTest, InvalidArgumentsToHostServicesAreRefusedAndCounted) {
  auto inst = create("NullServices", "{}");
  auto fw = build(inst);
  const uint64_t before = hostServiceMisuses();

  PreFilterOutcome pre;
  Status s = fw->runPreFilter(cycle_, pod_->view(), pre);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(pre.restricted);  // the NULL node name was not added
  for (std::size_t i = 0; i < 3; ++i) {
    Status f = fw->runFilter(cycle_, pod_->view(), node(i));
    EXPECT_TRUE(f.ok()) << f.message();
  }
  // 1 in PreFilter, 9 in each of the 3 Filter calls.
  EXPECT_EQ(hostServiceMisuses() - before, 28u);
  EXPECT_EQ(inst->failures(), 28u);
}

TEST_F(HostilePluginTest, HostServicesOutsideAPluginCallAreRefusedAndCounted) {
  LogCapture log;
  const sh_host_api* api = hostApi();
  const uint64_t before = hostServiceMisuses();
  sh_status status;
  api->status_add_reason(&status, nullptr, 3);
  api->status_add_reason(&status, "fits", SIZE_MAX);
  api->status_add_reason(&status, "fits", 4);
  EXPECT_EQ(status.status.reasons(), std::vector<std::string>{"fits"});
  EXPECT_EQ(api->waiting_pod_allow(nullptr, nullptr, 1, "P", 1), 0);
  EXPECT_EQ(api->preempt_victims(nullptr, nullptr, "n1", 2, nullptr, SIZE_MAX, &status), SH_ERROR);
  EXPECT_EQ(status.status.reasons().back(), "preempt_victims: too many victims");
  int runs = 0;
  api->parallel_for(
      nullptr, SIZE_MAX, [](void* ctx, size_t) { ++*static_cast<int*>(ctx); }, &runs);
  api->parallel_for(nullptr, 3, nullptr, &runs);
  EXPECT_EQ(runs, 0);
  api->parallel_for(
      nullptr, 3, [](void* ctx, size_t) { ++*static_cast<int*>(ctx); }, &runs);
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(hostServiceMisuses() - before, 6u);
  // A warning the first time in the process, at debug level after.
  EXPECT_THAT(log.text(), HasSubstr(" a plugin called waiting_pod_allow with pod_uid NULL and "
                                    "length 1; the call is ignored\n"));
  EXPECT_THAT(log.text(),
              HasSubstr("a plugin called preempt_victims with victim_count " +
                        std::to_string(SIZE_MAX) + " (at most 1048576); the call is ignored\n"));
}

TEST_F(HostilePluginTest, EventsToRegisterBeyondTheBoundKeepsTheFirst16AndIsReported) {
  LogCapture log;
  auto huge = create("ManyEvents", "{}");
  EXPECT_EQ(huge->events().size(), 16u);
  EXPECT_EQ(huge->failures(), 1u);
  EXPECT_THAT(log.text(),
              HasSubstr("error plugin \"ManyEvents\": events_to_register returned 1099511627776 "
                        "registrations, more than the 16 it could write (at most 4096 are "
                        "taken); keeping the first 16\n"));

  // Within the bound: called again with room for all of them, as the ABI says.
  auto many = create("ManyEvents", R"({"count": 100})");
  EXPECT_EQ(many->events().size(), 100u);
  EXPECT_EQ(many->failures(), 0u);
}

// The child died as a fault kills a process: by SIGSEGV, or through a sanitizer's own report
// when one had a handler installed before ours (ours hands the fault on to it), which exits
// non-zero or, with abort_on_error, aborts.
bool diedOfTheFault(int status) {
  return (WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGABRT)) ||
         (WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

TEST_F(HostilePluginTest, ACrashInFilterNamesThePluginAndThePoint) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto inst = create("SegvFilter", "{}");
  auto fw = build(inst);
  EXPECT_EXIT(
      {
        installFatalSignalReport();
        fw->runFilter(cycle_, pod_->view(), node(0));
      },
      diedOfTheFault, "schedhost: fatal signal SIGSEGV in plugin \"SegvFilter\" \\(Filter\\)\n");
}

// Several Filter workers in one crashing plugin fault at once: the report is said once, not
// once per thread.
TEST_F(HostilePluginTest, FaultsOnSeveralThreadsAreReportedOnce) {
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer takes SIGSEGV itself and hands it to the process's handler later; with
  // several threads faulting at once the child spins in its runtime instead of dying. The
  // ASan+UBSan and plain builds run this test.
  GTEST_SKIP() << "several threads faulting at once are not run under ThreadSanitizer";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto inst = create("SegvFilter", "{}");
  auto fw = build(inst);
  auto reportedOnce = [](const std::string& err) {
    const std::string line = "schedhost: fatal signal SIGSEGV in plugin \"SegvFilter\" (Filter)\n";
    std::size_t count = 0;
    for (auto at = err.find("schedhost: fatal signal"); at != std::string::npos;
         at = err.find("schedhost: fatal signal", at + 1)) {
      ++count;
    }
    return count == 1 && err.find(line) != std::string::npos;
  };
  EXPECT_EXIT(
      {
        installFatalSignalReport();
        std::atomic<int> ready{0};
        std::vector<std::thread> workers;
        constexpr int kWorkers = 8;
        for (int i = 0; i < kWorkers; ++i) {
          workers.emplace_back([&] {
            ready.fetch_add(1);
            while (ready.load() < kWorkers) {
            }
            fw->runFilter(cycle_, pod_->view(), node(0));
          });
        }
        for (std::thread& t : workers) {
          t.join();
        }
      },
      diedOfTheFault, ::testing::Truly(reportedOnce));
}

TEST_F(HostilePluginTest, TheWatchdogReportsACallThatDoesNotReturn) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  auto inst = create("SlowFilter", R"({"fd": )" + std::to_string(fds[0]) + "}");
  auto fw = build(inst);
  metrics::SchedulerMetrics metrics;
  LogCapture log;
  PluginWatchdog watchdog(std::chrono::milliseconds(20), &metrics.pluginSlowCalls);

  Status result(SH_ERROR, "not run");
  std::thread caller([&] { result = fw->runFilter(cycle_, pod_->view(), node(0)); });
  // The call returns only once the watchdog has reported it: as long as the report takes,
  // whatever the machine's speed.
  while (watchdog.reported() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(::write(fds[1], "x", 1), 1);
  caller.join();
  ::close(fds[0]);
  ::close(fds[1]);

  EXPECT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(watchdog.reported(), 1u);
  EXPECT_EQ(metrics.pluginSlowCalls.with({"SlowFilter", "Filter"}).value(), 1u);
  EXPECT_THAT(log.text(),
              HasSubstr("warning plugin \"SlowFilter\" has been running Filter for more than "
                        "0.02s ([plugins] callWarningSeconds); its thread is held until the call "
                        "returns\n"));
}

}  // namespace
}  // namespace sh::hostile_plugin_test
