// kube-scheduler's KubeSchedulerConfiguration (YAML and JSON) read as schedhost.toml is: the
// same HostConfig and profiles, upstream's defaults where they differ, strict decoding, and
// positions in the YAML an operator wrote.
#include "host/config/kube_scheduler_configuration.h"

#include <algorithm>
#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/config/feature_gates.h"
#include "host/config/host_config.h"
#include "host/config/profile_printer.h"
#include "host/config/profile_resolver.h"
#include "tests/config/test_catalog.h"

namespace sh::config::kube_scheduler_configuration_test {
namespace {

using testing::fullUpstreamCatalog;
using Names = std::vector<std::string>;

HostConfig yaml(std::string_view text, Diagnostics& diags) {
  return parseHostConfig(text, "scheduler.yaml", diags);
}

// The effective profiles, as `profile check --json` prints them.
std::string effective(const HostConfig& config, Diagnostics& diags) {
  boost::json::array out;
  for (const ResolvedProfile& p : resolveAll(config.profiles, fullUpstreamCatalog(), diags)) {
    out.push_back(toJson(p));
  }
  return boost::json::serialize(out);
}

// Upstream's documented example: a second profile that scores nothing.
constexpr std::string_view kTwoProfiles = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
  - schedulerName: no-scoring-scheduler
    plugins:
      preScore:
        disabled:
        - name: '*'
      score:
        disabled:
        - name: '*'
)";

constexpr std::string_view kTwoProfilesToml = R"(
[[profiles]]
schedulerName = "default-scheduler"
[[profiles]]
schedulerName = "no-scoring-scheduler"
[profiles.plugins.preScore]
disabled = [ { name = "*" } ]
[profiles.plugins.score]
disabled = [ { name = "*" } ]
)";

TEST(KubeSchedulerConfigurationTest, SameProfilesAsTheTomlItMirrors) {
  Diagnostics yamlDiags;
  const HostConfig fromYaml = yaml(kTwoProfiles, yamlDiags);
  ASSERT_FALSE(yamlDiags.hasErrors()) << yamlDiags.str();
  Diagnostics tomlDiags;
  const HostConfig fromToml = parseHostConfig(kTwoProfilesToml, "schedhost.toml", tomlDiags);
  ASSERT_FALSE(tomlDiags.hasErrors()) << tomlDiags.str();
  EXPECT_EQ(fromYaml.format, ConfigFormat::kKubeSchedulerConfiguration);
  EXPECT_EQ(effective(fromYaml, yamlDiags), effective(fromToml, tomlDiags));
  ASSERT_FALSE(yamlDiags.hasErrors()) << yamlDiags.str();

  const std::vector<ResolvedProfile> resolved =
      resolveAll(fromYaml.profiles, fullUpstreamCatalog(), yamlDiags);
  ASSERT_EQ(resolved.size(), 2u);
  EXPECT_EQ(resolved[1].schedulerName, "no-scoring-scheduler");
  EXPECT_TRUE(resolved[1].names(ExtensionPoint::kScore).empty());
  EXPECT_TRUE(resolved[1].names(ExtensionPoint::kPreScore).empty());
  // The rest of the default set is untouched: the filters of upstream 1.36's defaults.
  EXPECT_EQ(resolved[1].names(ExtensionPoint::kFilter), resolved[0].names(ExtensionPoint::kFilter));
  EXPECT_EQ(resolved[0].scoreWeight("TaintToleration"), 3);
}

TEST(KubeSchedulerConfigurationTest, JsonIsReadToo) {
  Diagnostics diags;
  const HostConfig config = parseHostConfig(
      R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
          "parallelism": 8, "percentageOfNodesToScore": 40,
          "profiles": [{"schedulerName": "a", "plugins": {"score": {"enabled":
              [{"name": "ImageLocality", "weight": 5}]}}}]})",
      "scheduler.json", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(config.parallelism, 8);
  EXPECT_EQ(config.percentageOfNodesToScore, 40);
  const std::vector<ResolvedProfile> resolved =
      resolveAll(config.profiles, fullUpstreamCatalog(), diags);
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].schedulerName, "a");
  EXPECT_EQ(resolved[0].scoreWeight("ImageLocality"), 5);
}

TEST(KubeSchedulerConfigurationTest, UpstreamDefaultsWhereTheyDiffer) {
  Diagnostics diags;
  const HostConfig config =
      yaml("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  // SetDefaults_KubeSchedulerConfiguration: the Lease is kube-scheduler's, protobuf on the wire.
  EXPECT_EQ(config.leaderElection.resourceName, "kube-scheduler");
  EXPECT_EQ(config.leaderElection.resourceNamespace, "kube-system");
  EXPECT_EQ(config.clientConnection.contentType, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(config.clientConnection.qps, 50);
  EXPECT_EQ(config.clientConnection.burst, 100);
  EXPECT_EQ(config.parallelism, 16);
  EXPECT_TRUE(config.enableProfiling);
  EXPECT_TRUE(config.enableContentionProfiling);
  ASSERT_EQ(config.profiles.size(), 1u);
  EXPECT_EQ(config.profiles[0].schedulerName, "default-scheduler");

  Diagnostics tomlDiags;
  const HostConfig toml = parseHostConfig("", "schedhost.toml", tomlDiags);
  EXPECT_EQ(toml.leaderElection.resourceName, "schedhost");
  EXPECT_EQ(toml.clientConnection.contentType, "application/json");
}

TEST(KubeSchedulerConfigurationTest, EveryTopLevelFieldIsRead) {
  Diagnostics diags;
  const HostConfig config = yaml(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 4
percentageOfNodesToScore: 0
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
enableProfiling: false
delayCacheUntilActive: true
leaderElection:
  leaderElect: false
  leaseDuration: 30s
  renewDeadline: 20s
  retryPeriod: 4s
  resourceLock: leases
  resourceName: my-scheduler
  resourceNamespace: sched
clientConnection:
  kubeconfig: /etc/kubernetes/scheduler.conf
  contentType: application/json
  acceptContentTypes: application/json,application/vnd.kubernetes.protobuf
  qps: 7.5
  burst: 20
extenders: []
)",
                                 diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(config.parallelism, 4);
  EXPECT_EQ(config.podInitialBackoffSeconds, 2);
  EXPECT_EQ(config.podMaxBackoffSeconds, 20);
  EXPECT_FALSE(config.enableProfiling);
  // Upstream: contention profiling defaults to enableProfiling's value.
  EXPECT_FALSE(config.enableContentionProfiling);
  EXPECT_TRUE(config.delayCacheUntilActive);
  EXPECT_FALSE(config.leaderElection.leaderElect);
  EXPECT_EQ(config.leaderElection.leaseDuration, std::chrono::seconds(30));
  EXPECT_EQ(config.leaderElection.renewDeadline, std::chrono::seconds(20));
  EXPECT_EQ(config.leaderElection.retryPeriod, std::chrono::seconds(4));
  EXPECT_EQ(config.leaderElection.resourceName, "my-scheduler");
  EXPECT_EQ(config.leaderElection.resourceNamespace, "sched");
  EXPECT_EQ(config.clientConnection.kubeconfig, "/etc/kubernetes/scheduler.conf");
  EXPECT_EQ(config.clientConnection.contentType, "application/json");
  EXPECT_EQ(config.clientConnection.qps, 7.5);
  EXPECT_EQ(config.clientConnection.burst, 20);
}

// Strict decoding: schedhost's own fields are unknown to the upstream type, so is a typo
// anywhere; each names its path and the line it is on.
TEST(KubeSchedulerConfigurationTest, UnknownFieldsNamePathAndLine) {
  Diagnostics diags;
  yaml(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
pluginDirs: [/opt/plugins]
profiles:
  - schedulerName: a
    libraries: []
    plugins:
      score:
        enabled:
          - name: ImageLocality
            wieght: 2
)",
       diags);
  const std::string text = diags.str();
  EXPECT_NE(text.find("scheduler.yaml:3:1: pluginDirs: unknown field \"pluginDirs\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler.yaml:6:5: profiles[0].libraries: unknown field \"libraries\""),
            std::string::npos)
      << text;
  // The position of an unknown field's value, as for any value.
  EXPECT_NE(text.find("scheduler.yaml:11:21: profiles[0].plugins.score.enabled[0].wieght: "
                      "unknown field \"wieght\""),
            std::string::npos)
      << text;
}

TEST(KubeSchedulerConfigurationTest, ValuesAreCheckedWithTheirYamlPositions) {
  Diagnostics diags;
  yaml(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 120
leaderElection:
  leaseDuration: "15"
clientConnection:
  contentType: application/yaml
podMaxBackoffSeconds: "10"
)",
       diags);
  const std::string text = diags.str();
  EXPECT_NE(text.find("scheduler.yaml:3:27: percentageOfNodesToScore: must be in the range "
                      "[0, 100], got 120"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler.yaml:5:18: leaderElection.leaseDuration: "), std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler.yaml:7:16: clientConnection.contentType: must be "
                      "\"application/json\" or \"application/vnd.kubernetes.protobuf\", got "
                      "\"application/yaml\""),
            std::string::npos)
      << text;
  // A quoted number is a string, as Go's decoding says.
  EXPECT_NE(text.find("scheduler.yaml:8:23: podMaxBackoffSeconds: expected an integer, got a "
                      "string"),
            std::string::npos)
      << text;
}

TEST(KubeSchedulerConfigurationTest, DuplicateFieldIsAnError) {
  Diagnostics diags;
  yaml(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "parallelism: 4\nparallelism: 8\n",
      diags);
  EXPECT_NE(diags.str().find("scheduler.yaml:4:1: parallelism: duplicate field \"parallelism\" "
                             "(first written at line 3)"),
            std::string::npos)
      << diags.str();
}

TEST(KubeSchedulerConfigurationTest, VersionAndKind) {
  {
    Diagnostics diags;
    yaml("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
         diags);
    EXPECT_NE(diags.str().find("scheduler.yaml:1:13: apiVersion: "
                               "\"kubescheduler.config.k8s.io/v1beta3\" is not served by "
                               "kube-scheduler v1.36"),
              std::string::npos)
        << diags.str();
  }
  {
    Diagnostics diags;
    yaml("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeProxyConfiguration\n", diags);
    EXPECT_NE(diags.str().find("kind: \"KubeProxyConfiguration\" is not a kind of "
                               "kubescheduler.config.k8s.io/v1"),
              std::string::npos)
        << diags.str();
  }
  {
    Diagnostics diags;
    yaml("parallelism: 4\n", diags);
    EXPECT_NE(diags.str().find("apiVersion: missing"), std::string::npos) << diags.str();
    EXPECT_NE(diags.str().find("kind: missing"), std::string::npos) << diags.str();
  }
}

TEST(KubeSchedulerConfigurationTest, InvalidYamlNamesTheSpot) {
  Diagnostics diags;
  const HostConfig config = yaml("apiVersion: [a,\nkind: x\n", diags);
  EXPECT_FALSE(config.parsed);
  EXPECT_NE(diags.str().find("scheduler.yaml:"), std::string::npos);
  EXPECT_NE(diags.str().find("invalid YAML: "), std::string::npos) << diags.str();
}

TEST(KubeSchedulerConfigurationTest, ArgsMayCarryTheirType) {
  Diagnostics diags;
  const HostConfig config = yaml(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - pluginConfig:
      - name: NodeResourcesFit
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: NodeResourcesFitArgs
          scoringStrategy:
            type: MostAllocated
            resources:
              - name: cpu
                weight: 1
              - name: intel.com/foo
                weight: 3
)",
                                 diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  ASSERT_EQ(config.profiles.size(), 1u);
  ASSERT_EQ(config.profiles[0].pluginConfig.size(), 1u);
  const std::string args =
      boost::json::serialize(config.profiles[0].pluginConfig[0].args->toJson());
  EXPECT_EQ(args,
            R"({"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},)"
            R"({"name":"intel.com/foo","weight":3}]}})");

  Diagnostics wrong;
  yaml(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - pluginConfig:
      - name: NodeResourcesFit
        args:
          kind: InterPodAffinityArgs
          hardPodAffinityWeight: 2
)",
       wrong);
  EXPECT_NE(wrong.str().find("scheduler.yaml:7:17: profiles[0].pluginConfig[0].args.kind: args "
                             "for plugin \"NodeResourcesFit\" must be of kind "
                             "\"NodeResourcesFitArgs\", got \"InterPodAffinityArgs\""),
            std::string::npos)
      << wrong.str();
}

TEST(KubeSchedulerConfigurationTest, ExtendersAreReadWithUpstreamsFieldsAndIgnorableOnesLast) {
  Diagnostics diags;
  const HostConfig config = yaml(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
  - urlPrefix: http://127.0.0.1:8888/optional
    filterVerb: filter
    ignorable: true
  - urlPrefix: https://gpu.example:8443/scheduler/
    filterVerb: filter
    prioritizeVerb: prioritize
    weight: 3
    bindVerb: bind
    enableHTTPS: true
    httpTimeout: 1500ms
    nodeCacheCapable: true
    tlsConfig:
      insecure: false
      serverName: gpu
      caData: Q0E=
    managedResources:
      - name: example.com/gpu
        ignoredByScheduler: true
)",
                                 diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  ASSERT_EQ(config.extenders.size(), 2u);
  const ExtenderConfig& gpu = config.extenders[0];  // the ignorable one moved after it
  EXPECT_EQ(gpu.urlPrefix, "https://gpu.example:8443/scheduler/");
  EXPECT_EQ(gpu.filterVerb, "filter");
  EXPECT_EQ(gpu.prioritizeVerb, "prioritize");
  EXPECT_EQ(gpu.weight, 3);
  EXPECT_EQ(gpu.bindVerb, "bind");
  EXPECT_TRUE(gpu.enableHttps);
  EXPECT_EQ(gpu.httpTimeout, std::chrono::milliseconds(1500));
  EXPECT_TRUE(gpu.nodeCacheCapable);
  EXPECT_EQ(gpu.tls.serverName, "gpu");
  EXPECT_EQ(gpu.tls.caData, "Q0E=");
  ASSERT_EQ(gpu.managedResources.size(), 1u);
  EXPECT_EQ(gpu.managedResources[0].name, "example.com/gpu");
  EXPECT_TRUE(gpu.managedResources[0].ignoredByScheduler);
  EXPECT_FALSE(gpu.ignorable);
  EXPECT_EQ(config.extenders[1].urlPrefix, "http://127.0.0.1:8888/optional");
  EXPECT_TRUE(config.extenders[1].ignorable);
  EXPECT_EQ(config.extenders[1].httpTimeout, std::chrono::milliseconds(5000));  // the default
  // ignoredByScheduler reaches NodeResourcesFit's args in the (default) profile.
  ASSERT_EQ(config.profiles.size(), 1u);
  const auto& pc = config.profiles[0].pluginConfig;
  auto fit = std::find_if(pc.begin(), pc.end(),
                          [](const PluginConfigEntry& e) { return e.name == "NodeResourcesFit"; });
  ASSERT_NE(fit, pc.end());
  ASSERT_NE(fit->args, nullptr);
  EXPECT_EQ(boost::json::serialize(fit->args->toJson().at("ignoredResources")),
            R"(["example.com/gpu"])");
}

TEST(KubeSchedulerConfigurationTest, ExtendersAreValidatedAsUpstreamValidatesThem) {
  Diagnostics diags;
  yaml(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
  - urlPrefix: http://a/
    prioritizeVerb: prioritize
    bindVerb: bind
    managedResources:
      - name: cpu
      - name: example.com/gpu
  - urlPrefix: http://b/
    bindVerb: bind
    httpTimeout: 5
    managedResources:
      - name: example.com/gpu
  - filterVerb: filter
    preemptVerb: preempt
)",
       diags);
  const std::string text = diags.str();
  for (const char* expected : {
           "extenders[0].weight: Invalid value: 0: must have a positive weight applied to it",
           "extenders[0].managedResources[0].name: Invalid value: \"cpu\": is an invalid "
           "extended resource name",
           "extenders[1].managedResources[0].name: Invalid value: \"example.com/gpu\": "
           "duplicate extender managed resource name",
           "extenders[1].httpTimeout: ",
           "extenders: Invalid value: \"found 2 extenders implementing bind\": only one "
           "extender can implement bind",
           "extenders[2].urlPrefix: required",
       }) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  // preemptVerb is a verb like the others (DefaultPreemption asks such extenders).
  EXPECT_EQ(text.find("preemptVerb"), std::string::npos) << text;
}

TEST(KubeSchedulerConfigurationTest, AliasBombAndDeepNestingStop) {
  // Ten to the ninth values, in a plugin's args (unknown top-level fields are not read at all).
  std::string bomb =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n- pluginConfig:\n  - name: Bomb\n    args:\n"
      "      a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "      a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) {
      bomb += (j == 0 ? "*a" : ", *a") + std::to_string(i - 1);
    }
    bomb += "]\n";
  }
  Diagnostics diags;
  EXPECT_FALSE(translateKubeSchedulerConfiguration(bomb, "bomb.yaml", diags));
  EXPECT_NE(diags.str().find("values (aliases expanded): not a scheduler configuration"),
            std::string::npos)
      << diags.str();

  std::string deep =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: "
      "KubeSchedulerConfiguration\nprofiles: " +
      std::string(100, '[') + std::string(100, ']') + "\n";
  Diagnostics deepDiags;
  EXPECT_FALSE(translateKubeSchedulerConfiguration(deep, "deep.yaml", deepDiags));
  EXPECT_NE(deepDiags.str().find("nested deeper than 64 levels"), std::string::npos)
      << deepDiags.str();
}

TEST(KubeSchedulerConfigurationTest, FormatIsToldByExtensionThenText) {
  EXPECT_EQ(detectConfigFormat("apiVersion: x", "a.toml"), ConfigFormat::kToml);
  EXPECT_EQ(detectConfigFormat("", "a.yaml"), ConfigFormat::kKubeSchedulerConfiguration);
  EXPECT_EQ(detectConfigFormat("", "a.yml"), ConfigFormat::kKubeSchedulerConfiguration);
  EXPECT_EQ(detectConfigFormat("", "a.json"), ConfigFormat::kKubeSchedulerConfiguration);
  EXPECT_EQ(detectConfigFormat("  {\"kind\": 1}", "config"),
            ConfigFormat::kKubeSchedulerConfiguration);
  EXPECT_EQ(detectConfigFormat("# c\nkind: KubeSchedulerConfiguration\n", "config"),
            ConfigFormat::kKubeSchedulerConfiguration);
  EXPECT_EQ(detectConfigFormat("parallelism = 4\n", "config"), ConfigFormat::kToml);
}

// config convert: TOML to YAML and back gives the same configuration.
TEST(KubeSchedulerConfigurationTest, ConvertRoundTrip) {
  const std::string toml = "parallelism = 8\n" + std::string(kTwoProfilesToml) + R"(
[leaderElection]
leaseDuration = "20s"
[[profiles]]
schedulerName = "fit"
[[profiles.pluginConfig]]
name = "NodeResourcesFit"
[profiles.pluginConfig.args.scoringStrategy]
type = "RequestedToCapacityRatio"
resources = [ { name = "cpu", weight = 1 } ]
requestedToCapacityRatio = { shape = [ { utilization = 0, score = 0 }, { utilization = 100, score = 10 } ] }
)";
  Diagnostics diags;
  const std::optional<std::string> asYaml =
      tomlToKubeSchedulerConfiguration(toml, "schedhost.toml", diags);
  ASSERT_TRUE(asYaml) << diags.str();
  const HostConfig fromToml = parseHostConfig(toml, "schedhost.toml", diags);
  const HostConfig fromYaml = parseHostConfig(*asYaml, "converted.yaml", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str() << *asYaml;
  EXPECT_EQ(effective(fromToml, diags), effective(fromYaml, diags)) << *asYaml;
  EXPECT_EQ(fromYaml.parallelism, 8);
  EXPECT_EQ(fromYaml.leaderElection.leaseDuration, std::chrono::seconds(20));
  // schedhost's Lease name, written out: upstream's default would be kube-scheduler.
  EXPECT_EQ(fromYaml.leaderElection.resourceName, "schedhost");

  std::optional<TranslatedConfig> back =
      translateKubeSchedulerConfiguration(*asYaml, "converted.yaml", diags, true);
  ASSERT_TRUE(back) << diags.str();
  const HostConfig again = parseHostConfig(back->toml, "again.toml", diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str() << back->toml;
  EXPECT_EQ(effective(again, diags), effective(fromToml, diags)) << back->toml;
  EXPECT_EQ(again.leaderElection.resourceName, "schedhost");
}

TEST(KubeSchedulerConfigurationTest, ConvertRefusesWhatUpstreamHasNoPlaceFor) {
  Diagnostics diags;
  EXPECT_FALSE(tomlToKubeSchedulerConfiguration(
      "pluginDirs = [\"/opt\"]\n[admin]\naddress = \"127.0.0.1:1\"\n", "schedhost.toml", diags));
  EXPECT_NE(diags.str().find("schedhost.toml:1:14: pluginDirs: schedhost's own field"),
            std::string::npos)
      << diags.str();
  EXPECT_NE(diags.str().find("admin: schedhost's own field"), std::string::npos) << diags.str();
}

// The profiles as upstream's defaulting leaves them: apis/config/v1/defaults_test.go
// TestSchedulerDefaults, "empty config" and the documented no-scoring profile, with v1.36's
// default set (DynamicResources and NodeDeclaredFeatures on by default).
boost::json::array upstreamDefaulted(std::string_view text) {
  Diagnostics diags;
  const HostConfig config = yaml(text, diags);
  const std::vector<ResolvedProfile> resolved =
      resolveAll(config.profiles, fullUpstreamCatalog(), diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  boost::json::array out;
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    out.push_back(toUpstreamJson(config.profiles[i], resolved[i], fullUpstreamCatalog()));
  }
  return out;
}

// getDefaultPlugins(): everything through MultiPoint, Score plugins with their weights.
constexpr std::string_view kDefaultMultiPoint = R"({"enabled": [
    {"name": "SchedulingGates"}, {"name": "PrioritySort"}, {"name": "NodeUnschedulable"},
    {"name": "NodeName"}, {"name": "TaintToleration", "weight": 3},
    {"name": "NodeAffinity", "weight": 2}, {"name": "NodePorts"},
    {"name": "NodeResourcesFit", "weight": 1}, {"name": "VolumeRestrictions"},
    {"name": "NodeVolumeLimits"}, {"name": "VolumeBinding"}, {"name": "VolumeZone"},
    {"name": "PodTopologySpread", "weight": 2}, {"name": "InterPodAffinity", "weight": 2},
    {"name": "DynamicResources", "weight": 2}, {"name": "DefaultPreemption"},
    {"name": "NodeResourcesBalancedAllocation", "weight": 1},
    {"name": "ImageLocality", "weight": 1}, {"name": "DefaultBinder"},
    {"name": "NodeDeclaredFeatures"}]})";

// defaults_test.go's pluginConfigs: the plugins in use with an args type, sorted by name, each
// with its defaults, typed.
constexpr std::string_view kDefaultPluginConfig = R"([
  {"name": "DefaultPreemption", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1",
   "kind": "DefaultPreemptionArgs", "minCandidateNodesPercentage": 10,
   "minCandidateNodesAbsolute": 100}},
  {"name": "DynamicResources", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1",
   "kind": "DynamicResourcesArgs", "filterTimeout": "10s", "bindingTimeout": "600s"}},
  {"name": "InterPodAffinity", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1",
   "kind": "InterPodAffinityArgs", "hardPodAffinityWeight": 1,
   "ignorePreferredTermsOfExistingPods": false}},
  {"name": "NodeAffinity", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1",
   "kind": "NodeAffinityArgs"}},
  {"name": "NodeResourcesBalancedAllocation", "args": {
   "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "NodeResourcesBalancedAllocationArgs",
   "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}},
  {"name": "NodeResourcesFit", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1",
   "kind": "NodeResourcesFitArgs", "scoringStrategy": {"type": "LeastAllocated",
   "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}},
  {"name": "PodTopologySpread", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1",
   "kind": "PodTopologySpreadArgs", "defaultingType": "System"}},
  {"name": "VolumeBinding", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1",
   "kind": "VolumeBindingArgs", "bindTimeoutSeconds": 600}}])";

boost::json::object upstreamPlugins(
    std::string_view multiPoint,
    std::initializer_list<std::pair<const char*, const char*>> points = {}) {
  boost::json::object plugins;
  for (const char* point :
       {"preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
        "reserve", "permit", "preBind", "bind", "postBind"}) {
    plugins[point] = boost::json::object();
  }
  for (const auto& [point, set] : points) plugins[point] = boost::json::parse(set);
  plugins["multiPoint"] = boost::json::parse(multiPoint);
  return plugins;
}

TEST(KubeSchedulerConfigurationTest, UpstreamsDefaultingOfAnEmptyConfiguration) {
  const boost::json::array profiles = upstreamDefaulted(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n");
  ASSERT_EQ(profiles.size(), 1u);
  boost::json::object expected;
  expected["schedulerName"] = "default-scheduler";
  expected["plugins"] = upstreamPlugins(kDefaultMultiPoint);
  expected["pluginConfig"] = boost::json::parse(kDefaultPluginConfig);
  EXPECT_EQ(profiles[0], boost::json::value(expected)) << boost::json::serialize(profiles[0]);
}

// A profile's own sets stay where they were written; args written are filled in with their
// defaults and keep their place ahead of the added ones (setDefaults_KubeSchedulerProfile).
TEST(KubeSchedulerConfigurationTest, UpstreamsDefaultingKeepsWhatWasWritten) {
  const boost::json::array profiles =
      upstreamDefaulted(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: no-scoring-scheduler
    percentageOfNodesToScore: 40
    plugins:
      preScore:
        disabled:
        - name: '*'
      score:
        disabled:
        - name: '*'
      multiPoint:
        enabled:
        - name: ImageLocality
          weight: 5
        disabled:
        - name: NodeDeclaredFeatures
    pluginConfig:
    - name: NodeResourcesFit
      args:
        scoringStrategy:
          type: MostAllocated
)");
  ASSERT_EQ(profiles.size(), 1u);
  // mergePluginSet: ImageLocality replaced in place with its new weight, NodeDeclaredFeatures
  // left out and listed as disabled.
  boost::json::value multiPoint = boost::json::parse(kDefaultMultiPoint);
  boost::json::array& enabled = multiPoint.as_object()["enabled"].as_array();
  enabled.pop_back();  // NodeDeclaredFeatures
  for (boost::json::value& plugin : enabled) {
    if (plugin.at("name") == "ImageLocality") plugin.as_object()["weight"] = 5;
  }
  multiPoint.as_object()["disabled"] = boost::json::parse(R"([{"name": "NodeDeclaredFeatures"}])");
  boost::json::array pluginConfig = boost::json::parse(kDefaultPluginConfig).as_array();
  boost::json::value fit;
  for (auto it = pluginConfig.begin(); it != pluginConfig.end(); ++it) {
    if (it->at("name") == "NodeResourcesFit") {
      fit = *it;
      pluginConfig.erase(it);
      break;
    }
  }
  // SetDefaults_NodeResourcesFitArgs: a strategy without resources gets cpu and memory.
  fit.as_object()["args"].as_object()["scoringStrategy"].as_object()["type"] = "MostAllocated";
  pluginConfig.insert(pluginConfig.begin(), fit);

  boost::json::object expected;
  expected["schedulerName"] = "no-scoring-scheduler";
  expected["percentageOfNodesToScore"] = 40;
  expected["plugins"] = upstreamPlugins(boost::json::serialize(multiPoint),
                                        {{"preScore", R"({"disabled": [{"name": "*"}]})"},
                                         {"score", R"({"disabled": [{"name": "*"}]})"}});
  expected["pluginConfig"] = pluginConfig;
  EXPECT_EQ(profiles[0], boost::json::value(expected)) << boost::json::serialize(profiles[0]);
}

TEST(FeatureGatesTest, UpstreamNamesAndMessages) {
  std::string error;
  EXPECT_FALSE(FeatureGates::parse("NoSuchGate=true", error));
  EXPECT_EQ(error, "unrecognized feature gate: NoSuchGate");
  EXPECT_FALSE(FeatureGates::parse("SchedulerQueueingHints=false", error));
  EXPECT_EQ(error,
            "cannot set feature gate SchedulerQueueingHints to false, feature is locked to "
            "true");
  EXPECT_FALSE(FeatureGates::parse("NodeDeclaredFeatures=maybe", error));
  EXPECT_EQ(error,
            "invalid value of NodeDeclaredFeatures=maybe, err: strconv.ParseBool: parsing "
            "\"maybe\": invalid syntax");
  EXPECT_FALSE(FeatureGates::parse("NodeDeclaredFeatures", error));
  EXPECT_EQ(error, "missing bool value for NodeDeclaredFeatures");
  // A gate at its default changes nothing; one schedhost cannot switch is refused by name.
  EXPECT_TRUE(FeatureGates::parse("SchedulerPopFromBackoffQ=true", error)) << error;
  EXPECT_FALSE(FeatureGates::parse("SchedulerPopFromBackoffQ=false", error));
  EXPECT_NE(error.find("SchedulerPopFromBackoffQ=false: schedhost implements "
                       "SchedulerPopFromBackoffQ only at its Kubernetes v1.36 default (true)"),
            std::string::npos)
      << error;
  const std::optional<FeatureGates> gates =
      FeatureGates::parse(" NodeDeclaredFeatures=false ,", error);
  ASSERT_TRUE(gates) << error;
  EXPECT_FALSE(gates->enabled("NodeDeclaredFeatures"));
  EXPECT_TRUE(gates->enabled("SchedulerPopFromBackoffQ"));
}

TEST(FeatureGatesTest, NodeDeclaredFeaturesOffLeavesTheDefaultSet) {
  std::string error;
  std::optional<FeatureGates> off = FeatureGates::parse("NodeDeclaredFeatures=false", error);
  ASSERT_TRUE(off) << error;
  setProcessFeatureGates(*off);
  Diagnostics diags;
  const ResolvedProfile without = testing::resolveText("", fullUpstreamCatalog(), diags);
  setProcessFeatureGates(FeatureGates{});
  const ResolvedProfile with = testing::resolveText("", fullUpstreamCatalog(), diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  const auto has = [](const ResolvedProfile& p) {
    const Names filters = p.names(ExtensionPoint::kFilter);
    return std::find(filters.begin(), filters.end(), "NodeDeclaredFeatures") != filters.end();
  };
  EXPECT_TRUE(has(with));
  EXPECT_FALSE(has(without));
}

}  // namespace
}  // namespace sh::config::kube_scheduler_configuration_test
