// schedhost run as an operator runs it: a live child process with its admin endpoints, reloads
// by POST /reload, SIGHUP and file changes, and the status and reload commands against it.
// Each test starts its own process and kills and reaps it on the way out, even on failure.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "host/admin/client.h"
#include "tests/admin/fake_handler.h"
#include "tests/metrics/prometheus_text_parser.h"

extern char** environ;

namespace sh::cli::run_live_test {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using admin::testing::TempDir;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kStartDeadline{30};
constexpr std::chrono::seconds kEventDeadline{15};
constexpr std::chrono::milliseconds kPollInterval{20};
constexpr std::chrono::milliseconds kRequestTimeout{10'000};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` to a temporary file beside `path` and renames it over `path`.
void replaceFile(const fs::path& path, const std::string& text) {
  fs::path temp = path;
  temp += ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << text;
  }
  fs::rename(temp, path);
}

// Polls `done` until it holds or `deadline` passes; the last answer.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds deadline) {
  const auto end = Clock::now() + deadline;
  while (true) {
    if (done()) return true;
    if (Clock::now() >= end) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
}

// The JSON lines of the decision log; lines that are not JSON objects are skipped.
std::vector<json::object> jsonLines(const std::string& text) {
  std::vector<json::object> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (!ec && v.is_object()) out.push_back(v.as_object());
  }
  return out;
}

std::string str(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

int64_t integer(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return -1;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  return -1;
}

// What the test's configuration file says; text() renders schedhost.toml.
struct ConfigSpec {
  std::string socket;
  bool watch = false;
  // Extra TOML appended after [admin] and [reload]: the [[profiles]] tables.
  std::string profiles = "[[profiles]]\nschedulerName = \"default-scheduler\"\n";

  std::string text() const {
    std::string out = "parallelism = 2\npodInitialBackoffSeconds = 1\npodMaxBackoffSeconds = 1\n";
    if (!socket.empty()) out += "[admin]\nsocket = \"" + socket + "\"\n";
    out += "[reload]\nwatch = " + std::string(watch ? "true" : "false") +
           "\ndebounceMilliseconds = 100\n";
    return out + profiles;
  }
};

const char* const kWithoutImageLocality =
    "[[profiles]]\n"
    "schedulerName = \"default-scheduler\"\n"
    "[profiles.plugins.score]\n"
    "disabled = [ { name = \"ImageLocality\" } ]\n";

const char* const kTwoProfiles =
    "[[profiles]]\n"
    "schedulerName = \"default-scheduler\"\n"
    "[[profiles]]\n"
    "schedulerName = \"batch\"\n";

struct CliRun {
  int exitCode = -1;
  std::string out;
  std::string err;
};

// A `schedhost run --follow` child process. The destructor kills and reaps it.
class LiveRun {
 public:
  LiveRun(const fs::path& dir, std::vector<std::string> extraArgs,
          const std::string& pluginDir = SCHEDHOST_PLUGIN_DIR)
      : dir_(dir) {
    stdout_ = dir / "run.out";
    stderr_ = dir / "run.err";
    std::vector<std::string> args = {SCHEDHOST_BIN,
                                     "run",
                                     "--follow",
                                     "--config",
                                     (dir / "schedhost.toml").string(),
                                     "--cluster",
                                     SCHEDHOST_CLUSTER,
                                     "--events",
                                     (dir / "events.jsonl").string(),
                                     "--plugin-dir",
                                     pluginDir,
                                     "--seed",
                                     "1"};
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, stdout_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, stderr_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, SCHEDHOST_BIN, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc == 0) pid_ = pid;
  }
  ~LiveRun() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  LiveRun(const LiveRun&) = delete;
  LiveRun& operator=(const LiveRun&) = delete;

  bool started() const { return pid_ > 0; }
  void signal(int sig) const {
    if (pid_ > 0) ::kill(pid_, sig);
  }
  // Still running (not reaped).
  bool alive() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      exitStatus_ = status;
      pid_ = -1;
      return false;
    }
    return true;
  }
  // Waits for the process to exit; its exit code, or nullopt if it did not exit in time or
  // died of a signal.
  std::optional<int> waitExit(std::chrono::milliseconds deadline) {
    if (!eventually([&] { return !alive(); }, deadline)) return std::nullopt;
    if (!exitStatus_ || !WIFEXITED(*exitStatus_)) return std::nullopt;
    return WEXITSTATUS(*exitStatus_);
  }

  std::string out() const { return slurp(stdout_); }
  std::string err() const { return slurp(stderr_); }
  std::vector<json::object> lines() const { return jsonLines(out()); }

 private:
  fs::path dir_;
  fs::path stdout_;
  fs::path stderr_;
  pid_t pid_ = -1;
  std::optional<int> exitStatus_;
};

class RunLive : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = (dir_.path() / "admin.sock").string();
    config_.socket = socket_;
    std::ofstream(events()) << "";
  }

  fs::path configPath() const { return dir_.path() / "schedhost.toml"; }
  fs::path events() const { return dir_.path() / "events.jsonl"; }

  void writeConfig() { replaceFile(configPath(), config_.text()); }

  // Writes the configuration and starts the process; waits for /readyz to answer 200 on the
  // Unix socket (when the configuration sets one).
  void start(std::vector<std::string> extraArgs = {}) {
    writeConfig();
    run_ = std::make_unique<LiveRun>(dir_.path(), std::move(extraArgs), pluginDir_);
    ASSERT_TRUE(run_->started());
    if (!config_.socket.empty()) {
      endpoint_.socket = socket_;
      bool ready = eventually(
          [&] {
            admin::ClientResponse r = get("/readyz");
            return r.ok() && r.status == 200;
          },
          kStartDeadline);
      ASSERT_TRUE(ready) << "not ready; stderr:\n" << run_->err();
    }
  }

  admin::ClientResponse get(const std::string& path) {
    return admin::request(endpoint_, "GET", path, kRequestTimeout);
  }
  admin::ClientResponse post(const std::string& path) {
    return admin::request(endpoint_, "POST", path, kRequestTimeout);
  }

  json::object getJson(const std::string& path) {
    admin::ClientResponse r = get(path);
    EXPECT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.status, 200) << r.body;
    boost::system::error_code ec;
    json::value v = json::parse(r.body, ec);
    EXPECT_FALSE(ec) << path << " is not JSON: " << r.body;
    return !ec && v.is_object() ? v.as_object() : json::object{};
  }

  // Appends one watch event adding a pod (a single write, so the follower never sees half a
  // line).
  void addPod(const std::string& name, const std::string& cpu = "100m",
              const std::string& schedulerName = "default-scheduler") {
    json::object pod{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}}},
        {"spec",
         {{"schedulerName", schedulerName},
          {"containers",
           json::array{
               json::object{{"name", "c"},
                            {"image", "x"},
                            {"resources", {{"requests", {{"cpu", cpu}, {"memory", "64Mi"}}}}}}}}}}};
    std::string line = json::serialize(json::object{{"type", "ADDED"}, {"object", pod}}) + "\n";
    std::ofstream out(events(), std::ios::app);
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }

  // The first decision line of `kind` for `pod` (and generation, when given), waiting for it.
  std::optional<json::object> waitForLine(const std::string& kind, const std::string& pod,
                                          std::optional<int64_t> generation = std::nullopt) {
    std::optional<json::object> found;
    eventually(
        [&] {
          for (const json::object& line : run_->lines()) {
            if (str(line, "kind") == kind && str(line, "pod") == pod &&
                (!generation || integer(line, "generation") == *generation)) {
              found = line;
              return true;
            }
          }
          return false;
        },
        kEventDeadline);
    return found;
  }

  std::vector<json::object> reloadLines() const {
    std::vector<json::object> out;
    for (const json::object& line : run_->lines()) {
      if (str(line, "kind") == "Reload") out.push_back(line);
    }
    return out;
  }

  // schedhost status|reload ... against the running process.
  CliRun cli(const std::string& args) {
    auto out = dir_.path() / "cli.out";
    auto err = dir_.path() / "cli.err";
    std::string command =
        std::string(SCHEDHOST_BIN) + " " + args + " >" + out.string() + " 2>" + err.string();
    int raw = std::system(command.c_str());
    CliRun result;
    result.exitCode = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    result.out = slurp(out);
    result.err = slurp(err);
    return result;
  }

  // The pod is bound, whatever the generation.
  void expectBound(const std::string& name) {
    addPod(name);
    EXPECT_TRUE(waitForLine("Binding", "default/" + name).has_value())
        << name << " not bound; stdout:\n"
        << run_->out() << "\nstderr:\n"
        << run_->err();
  }

  TempDir dir_;
  std::string socket_;
  ConfigSpec config_;
  admin::Endpoint endpoint_;
  std::unique_ptr<LiveRun> run_;
  std::string pluginDir_ = SCHEDHOST_PLUGIN_DIR;
};

using metrics::testing::findSample;

TEST_F(RunLive, ProbesAndShutdown) {
  ASSERT_NO_FATAL_FAILURE(start());
  for (const char* path : {"/healthz", "/livez", "/readyz"}) {
    admin::ClientResponse r = get(path);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body, "ok\n") << path;  // the text reply ends its line, as server_test has it
  }
  ASSERT_TRUE(fs::exists(socket_));
  // A reload first, so that the exit (and, in a sanitizer build, its leak check) covers a
  // replaced generation too.
  admin::ClientResponse reload = post("/reload");
  ASSERT_TRUE(reload.ok()) << reload.error;
  EXPECT_EQ(reload.status, 200) << reload.body;
  run_->signal(SIGTERM);
  // While it stops, /readyz may still answer for a moment: then with 503, never 200 again
  // once it said 503. The window can be too short to see.
  bool sawStopping = false;
  eventually(
      [&] {
        admin::ClientResponse r = get("/readyz");
        if (!r.ok()) return true;  // the listener is gone
        if (r.status == 503) {
          sawStopping = true;
          EXPECT_EQ(r.body, "not ready: shutting down\n");
        } else {
          EXPECT_FALSE(sawStopping) << "/readyz answered " << r.status << " after a 503";
        }
        return false;
      },
      kEventDeadline);
  std::optional<int> code = run_->waitExit(kEventDeadline);
  ASSERT_TRUE(code.has_value()) << "no clean exit after SIGTERM; stderr:\n" << run_->err();
  EXPECT_EQ(*code, 0) << run_->err();
  EXPECT_FALSE(fs::exists(socket_));
  // The run ends with its summary.
  std::vector<json::object> lines = run_->lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(str(lines.back(), "kind"), "Summary");
}

TEST_F(RunLive, TcpAddressFromStderr) {
  config_.socket.clear();
  ASSERT_NO_FATAL_FAILURE(start({"--admin-address", "127.0.0.1:0"}));
  const std::regex announced(R"(schedhost run: admin endpoints on 127\.0\.0\.1:0 \(port (\d+)\))");
  std::smatch match;
  std::string err;
  ASSERT_TRUE(eventually(
      [&] {
        err = run_->err();
        return std::regex_search(err, match, announced);
      },
      kStartDeadline))
      << err;
  endpoint_.address = "127.0.0.1:" + match[1].str();
  ASSERT_TRUE(eventually(
      [&] {
        admin::ClientResponse r = get("/readyz");
        return r.ok() && r.status == 200;
      },
      kStartDeadline));
  admin::ClientResponse r = get("/healthz");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  CliRun status = cli("status --admin-address " + endpoint_.address);
  EXPECT_EQ(status.exitCode, 0) << status.err;
  EXPECT_NE(status.out.find("generation 1 (ready)"), std::string::npos) << status.out;
}

TEST_F(RunLive, Configz) {
  ASSERT_NO_FATAL_FAILURE(start());
  json::object config = getJson("/configz");
  EXPECT_EQ(integer(config, "generation"), 1);
  const json::value* profiles = config.if_contains("profiles");
  ASSERT_TRUE(profiles != nullptr && profiles->is_array()) << json::serialize(config);
  ASSERT_EQ(profiles->as_array().size(), 1u);
  const json::object& profile = profiles->as_array()[0].as_object();
  EXPECT_EQ(str(profile, "schedulerName"), "default-scheduler");
  const json::object& plugins = profile.at("plugins").as_object();
  EXPECT_EQ(json::serialize(plugins.at("QueueSort")), R"(["PrioritySort"])");
  EXPECT_EQ(json::serialize(plugins.at("Bind")), R"(["DefaultBinder"])");
  bool sawImageLocality = false;
  for (const json::value& score : plugins.at("Score").as_array()) {
    const json::object& entry = score.as_object();
    EXPECT_FALSE(str(entry, "name").empty());
    EXPECT_GT(integer(entry, "weight"), 0) << json::serialize(entry);
    if (str(entry, "name") == "TaintToleration") {
      EXPECT_EQ(integer(entry, "weight"), 3);
    }
    sawImageLocality = sawImageLocality || str(entry, "name") == "ImageLocality";
  }
  EXPECT_TRUE(sawImageLocality);
  const json::array& libraries = config.at("libraries").as_array();
  ASSERT_FALSE(libraries.empty());
  const std::regex hex64("[0-9a-f]{64}");
  const std::regex abi(R"(\d+\.\d+)");
  for (const json::value& lib : libraries) {
    const json::object& entry = lib.as_object();
    EXPECT_TRUE(fs::exists(str(entry, "path"))) << json::serialize(entry);
    EXPECT_TRUE(std::regex_match(str(entry, "sha256"), hex64)) << json::serialize(entry);
    EXPECT_TRUE(std::regex_match(str(entry, "abi"), abi)) << json::serialize(entry);
  }
}

TEST_F(RunLive, MetricsBeforeAndAfterReload) {
  ASSERT_NO_FATAL_FAILURE(start());
  // At least one pod of the cluster file has been bound.
  ASSERT_TRUE(waitForLine("Binding", "default/web-0").has_value()) << run_->out();
  using metrics::testing::parsePrometheusText;
  std::vector<metrics::testing::ParsedFamily> families;
  ASSERT_TRUE(eventually(
      [&] {
        admin::ClientResponse r = get("/metrics");
        if (!r.ok() || r.status != 200) return false;
        families = parsePrometheusText(r.body);
        const auto* s = findSample(families, "scheduler_schedule_attempts_total",
                                   {{"profile", "default-scheduler"}, {"result", "scheduled"}});
        return s != nullptr && s->value > 0;
      },
      kEventDeadline));
  admin::ClientResponse r = get("/metrics");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.contentType, "text/plain; version=0.0.4; charset=utf-8");
  ASSERT_NO_THROW(families = parsePrometheusText(r.body)) << r.body;
  const auto* attempts = findSample(families, "scheduler_schedule_attempts_total",
                                    {{"profile", "default-scheduler"}, {"result", "scheduled"}});
  ASSERT_NE(attempts, nullptr) << r.body;
  EXPECT_EQ(attempts->labels.size(), 2u);
  EXPECT_GT(attempts->value, 0);
  for (const char* queue : {"active", "backoff", "unschedulable", "gated"}) {
    EXPECT_NE(findSample(families, "scheduler_pending_pods", {{"queue", queue}}), nullptr) << queue;
  }
  EXPECT_NE(findSample(families, "scheduler_framework_extension_point_duration_seconds_count",
                       {{"profile", "default-scheduler"}}),
            nullptr)
      << r.body;
  const auto* generation = findSample(families, "schedhost_profile_generation", {});
  ASSERT_NE(generation, nullptr);
  EXPECT_EQ(generation->value, 1);
  const auto* resident = findSample(families, "schedhost_plugin_libraries_resident", {});
  ASSERT_NE(resident, nullptr);
  EXPECT_GT(resident->value, 0);
  // The cache: the cluster file's nodes, and at least the pod bound above.
  const auto* cachedNodes = findSample(families, "scheduler_cache_size", {{"type", "nodes"}});
  ASSERT_NE(cachedNodes, nullptr) << r.body;
  EXPECT_GT(cachedNodes->value, 0);
  const auto* cachedPods = findSample(families, "scheduler_cache_size", {{"type", "pods"}});
  ASSERT_NE(cachedPods, nullptr) << r.body;
  EXPECT_GE(cachedPods->value, 1);
  EXPECT_NE(findSample(families, "scheduler_cache_size", {{"type", "assumed_pods"}}), nullptr);
  EXPECT_NE(findSample(families, "scheduler_goroutines", {{"operation", "binding"}}), nullptr);
  const auto* algorithm =
      findSample(families, "scheduler_scheduling_algorithm_duration_seconds_count", {});
  ASSERT_NE(algorithm, nullptr) << r.body;
  EXPECT_GE(algorithm->value, 1);
  // The process collector, read from /proc: this child's figures.
  const auto* rss = findSample(families, "process_resident_memory_bytes", {});
  ASSERT_NE(rss, nullptr) << r.body;
  EXPECT_GT(rss->value, 1 << 20);
  const auto* fds = findSample(families, "process_open_fds", {});
  ASSERT_NE(fds, nullptr);
  EXPECT_GE(fds->value, 3);  // stdin, stdout, stderr at least
  const auto* started = findSample(families, "process_start_time_seconds", {});
  ASSERT_NE(started, nullptr);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(started->value, now, 600);  // started moments ago (a clock tick's rounding)
  EXPECT_NE(findSample(families, "process_cpu_seconds_total", {}), nullptr);
  EXPECT_NE(findSample(families, "process_max_fds", {}), nullptr);

  admin::ClientResponse reload = post("/reload");
  ASSERT_TRUE(reload.ok()) << reload.error;
  EXPECT_EQ(reload.status, 200) << reload.body;
  r = get("/metrics");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_NO_THROW(families = parsePrometheusText(r.body)) << r.body;
  const auto* applied = findSample(families, "schedhost_reloads_total", {{"result", "Applied"}});
  ASSERT_NE(applied, nullptr) << r.body;
  EXPECT_EQ(applied->value, 1);
  generation = findSample(families, "schedhost_profile_generation", {});
  ASSERT_NE(generation, nullptr);
  EXPECT_EQ(generation->value, 2);
}

TEST_F(RunLive, PostReloadAppliesAndBindsWithTheNewGeneration) {
  ASSERT_NO_FATAL_FAILURE(start());
  config_.profiles = kWithoutImageLocality;
  writeConfig();
  admin::ClientResponse r = post("/reload");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.status, 200);
  const std::string expected =
      R"({"kind":"Reload","generation":2,"result":"Applied","changed":["default-scheduler/ImageLocality"]})";
  EXPECT_EQ(r.body, expected);
  EXPECT_TRUE(eventually([&] { return run_->out().find(expected + "\n") != std::string::npos; },
                         kEventDeadline))
      << run_->out();
  addPod("after-reload");
  std::optional<json::object> binding = waitForLine("Binding", "default/after-reload");
  ASSERT_TRUE(binding.has_value()) << run_->out() << run_->err();
  EXPECT_EQ(integer(*binding, "generation"), 2) << json::serialize(*binding);
  json::object config = getJson("/configz");
  EXPECT_EQ(integer(config, "generation"), 2);
  const json::object& profile = config.at("profiles").as_array()[0].as_object();
  EXPECT_EQ(json::serialize(profile).find("ImageLocality"), std::string::npos)
      << json::serialize(profile);
}

TEST_F(RunLive, RejectedReloadsKeepTheGenerationAndScheduling) {
  ASSERT_NO_FATAL_FAILURE(start());
  const fs::path notAPlugin = dir_.path() / "x.so";
  std::ofstream(notAPlugin) << "not a shared object\n";
  struct Case {
    std::string name;
    std::string profiles;  // or, when empty, `raw` replaces the whole file
    std::string raw;
    std::string expected;  // a regular expression the CLI's output must contain
  };
  const std::vector<Case> cases = {
      {"bad TOML", "", "parallelism = 2\nparallelism = = 3\n", R"(schedhost\.toml:2:\d+: )"},
      {"unknown plugin",
       "[[profiles]]\nschedulerName = \"default-scheduler\"\n[profiles.plugins.score]\n"
       "enabled = [ { name = \"NoSuchPlugin\", weight = 1 } ]\n",
       "", R"(schedhost\.toml:\d+:\d+: .*plugin "NoSuchPlugin" does not exist)"},
      {"bad args",
       "[[profiles]]\nschedulerName = \"default-scheduler\"\n[[profiles.pluginConfig]]\n"
       "name = \"NodeResourcesFit\"\n[profiles.pluginConfig.args.scoringStrategy]\n"
       "type = \"Nope\"\n",
       "", R"(schedhost\.toml:\d+:\d+: .*scoringStrategy\.type.*Unsupported value: "Nope")"},
      {"not a plugin",
       "[[profiles]]\nschedulerName = \"default-scheduler\"\n[[profiles.libraries]]\n"
       "path = \"" +
           notAPlugin.string() + "\"\n",
       "", std::regex_replace(notAPlugin.string(), std::regex(R"([.])"), R"(\.)")},
      {"queueSort mismatch",
       std::string(kTwoProfiles) +
           "[profiles.plugins.queueSort]\ndisabled = [ { name = \"*\" } ]\n",
       "", R"(exactly one queueSort plugin is required for profile "batch", got 0)"},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    if (c.profiles.empty()) {
      replaceFile(configPath(), c.raw);
    } else {
      config_.profiles = c.profiles;
      writeConfig();
    }
    CliRun reload = cli("reload --admin-socket " + socket_);
    EXPECT_EQ(reload.exitCode, 1) << reload.out << reload.err;
    const std::string printed = reload.out + reload.err;
    EXPECT_NE(printed.find("rejected"), std::string::npos) << printed;
    EXPECT_TRUE(std::regex_search(printed, std::regex(c.expected))) << printed;
    json::object status = getJson("/status");
    EXPECT_EQ(integer(status, "generation"), 1) << json::serialize(status);
    const json::value* last = status.if_contains("lastReload");
    ASSERT_TRUE(last != nullptr && last->is_object()) << json::serialize(status);
    EXPECT_EQ(str(last->as_object(), "result"), "Rejected");
    ASSERT_NO_FATAL_FAILURE(expectBound("after-rejection-" + std::to_string(n++)));
  }
  CliRun status = cli("status --admin-socket " + socket_);
  EXPECT_EQ(status.exitCode, 0) << status.err;
  EXPECT_EQ(status.out.rfind("generation 1 (ready)\n", 0), 0u) << status.out;
  EXPECT_NE(status.out.find("last reload: rejected: "), std::string::npos) << status.out;
  const std::vector<json::object> reloads = reloadLines();
  ASSERT_EQ(reloads.size(), cases.size());
  for (const json::object& line : reloads) {
    EXPECT_EQ(str(line, "result"), "Rejected");
    EXPECT_EQ(integer(line, "generation"), 1);
  }
}

TEST_F(RunLive, SighupReloads) {
  ASSERT_NO_FATAL_FAILURE(start());
  run_->signal(SIGHUP);
  ASSERT_TRUE(eventually([&] { return reloadLines().size() == 1; }, kEventDeadline))
      << run_->out() << run_->err();
  EXPECT_EQ(str(reloadLines()[0], "result"), "Applied");
  EXPECT_EQ(integer(reloadLines()[0], "generation"), 2);
  // Said on stderr at the default log level, as docs/operations.md shows it.
  EXPECT_TRUE(eventually(
      [&] {
        return run_->err().find("reload (SIGHUP): generation 2 applied; changed: nothing\n") !=
               std::string::npos;
      },
      kEventDeadline))
      << run_->err();
}

TEST_F(RunLive, FileChangeReloadsOnceWhenWatched) {
  config_.watch = true;
  ASSERT_NO_FATAL_FAILURE(start());
  config_.profiles = kWithoutImageLocality;
  writeConfig();
  ASSERT_TRUE(eventually([&] { return !reloadLines().empty(); }, kEventDeadline))
      << run_->out() << run_->err();
  // Well past the 100 ms debounce: no second reload follows.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const std::vector<json::object> reloads = reloadLines();
  ASSERT_EQ(reloads.size(), 1u) << run_->out();
  EXPECT_EQ(
      json::serialize(reloads[0]),
      R"({"kind":"Reload","generation":2,"result":"Applied","changed":["default-scheduler/ImageLocality"]})");
}

TEST_F(RunLive, FileChangeIgnoredWhenNotWatched) {
  config_.watch = false;
  ASSERT_NO_FATAL_FAILURE(start());
  config_.profiles = kWithoutImageLocality;
  writeConfig();
  // Well past the 100 ms debounce; a bound pod shows the process is still going.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  expectBound("after-change");
  EXPECT_TRUE(reloadLines().empty()) << run_->out();
  CliRun status = cli("status --admin-socket " + socket_);
  EXPECT_EQ(status.out.rfind("generation 1 (ready)\n", 0), 0u) << status.out;
}

// Writing over a loaded plugin's file in place (`cp` onto it: truncated, then written; a
// partial write) used to kill the running scheduler within milliseconds (SIGBUS on the next
// call into the truncated pages). The host runs a sealed copy of what it checked: the process
// goes on scheduling, the reload the watch makes of a broken file is rejected, and the file
// written back whole reloads as the same build.
TEST_F(RunLive, APluginFileWrittenInPlaceCannotReachTheRunningScheduler) {
  const fs::path plugins = dir_.path() / "plugins";
  fs::create_directories(plugins);
  fs::permissions(plugins, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
  for (const fs::directory_entry& entry : fs::directory_iterator(SCHEDHOST_PLUGIN_DIR)) {
    if (entry.path().extension() == ".so") {
      fs::copy_file(entry.path(), plugins / entry.path().filename());
    }
  }
  pluginDir_ = plugins.string();
  config_.watch = true;
  ASSERT_NO_FATAL_FAILURE(start());
  ASSERT_NO_FATAL_FAILURE(expectBound("before"));

  // NodeResourcesFit runs in every cycle: PreFilter, Filter and Score.
  const fs::path fit = plugins / "libplugin_noderesourcesfit.so";
  ASSERT_TRUE(fs::exists(fit));
  const std::string build = slurp(fit);
  auto writeInPlace = [&](const std::string& bytes) {
    std::ofstream out(fit, std::ios::binary | std::ios::in | std::ios::out | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  };

  // A partial write: the first half of the file, in place.
  writeInPlace(build.substr(0, build.size() / 2));
  ASSERT_NO_FATAL_FAILURE(expectBound("after-partial-write"));
  ASSERT_TRUE(eventually([&] { return !reloadLines().empty(); }, kEventDeadline))
      << run_->out() << run_->err();
  EXPECT_EQ(str(reloadLines().back(), "result"), "Rejected") << run_->out();
  EXPECT_TRUE(run_->alive()) << run_->err();

  // The same build copied back in place: the same bytes, one more (applied) generation.
  writeInPlace(build);
  ASSERT_TRUE(eventually(
      [&] { return !reloadLines().empty() && str(reloadLines().back(), "result") == "Applied"; },
      kEventDeadline))
      << run_->out() << run_->err();
  ASSERT_NO_FATAL_FAILURE(expectBound("after-rewrite"));
  EXPECT_TRUE(run_->alive()) << run_->err();
  EXPECT_EQ(run_->err().find("fatal signal"), std::string::npos) << run_->err();
}

// A FIFO put in place of the configuration is refused at once, naming it: the reload is
// rejected instead of blocking on the open, and SIGTERM still ends the process.
TEST_F(RunLive, AFifoInPlaceOfTheConfigurationIsRefusedWithoutBlocking) {
  ASSERT_NO_FATAL_FAILURE(start());
  const fs::path fifo = dir_.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::rename(fifo, configPath());
  CliRun reload = cli("reload --admin-socket " + socket_);
  EXPECT_EQ(reload.exitCode, 1) << reload.out << reload.err;
  EXPECT_NE((reload.out + reload.err)
                .find(configPath().string() + ": cannot read file: not a regular file (a FIFO)"),
            std::string::npos)
      << reload.out << reload.err;
  ASSERT_NO_FATAL_FAILURE(expectBound("after-fifo"));
  run_->signal(SIGTERM);
  EXPECT_EQ(run_->waitExit(kEventDeadline), 0) << run_->err();
}

bool hasOrphan(const json::object& status, const std::string& pod, const std::string& name) {
  const json::value* orphans = status.if_contains("podsWithoutProfile");
  if (orphans == nullptr || !orphans->is_array()) return false;
  for (const json::value& v : orphans->as_array()) {
    if (v.is_object() && str(v.as_object(), "pod") == pod &&
        str(v.as_object(), "schedulerName") == name) {
      return true;
    }
  }
  return false;
}

TEST_F(RunLive, ProfileRemovedWithAPendingPod) {
  config_.profiles = kTwoProfiles;
  ASSERT_NO_FATAL_FAILURE(start());
  addPod("stuck", "1000", "batch");
  std::optional<json::object> failed = waitForLine("FailedScheduling", "default/stuck", 1);
  ASSERT_TRUE(failed.has_value()) << run_->out() << run_->err();
  EXPECT_EQ(str(*failed, "profile"), "batch");

  config_.profiles = "[[profiles]]\nschedulerName = \"default-scheduler\"\n";
  writeConfig();
  admin::ClientResponse r = post("/reload");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(eventually([&] { return hasOrphan(getJson("/status"), "default/stuck", "batch"); },
                         kEventDeadline))
      << json::serialize(getJson("/status"));
  CliRun status = cli("status --admin-socket " + socket_);
  EXPECT_NE(status.out.find("  default/stuck (schedulerName \"batch\")\n"), std::string::npos)
      << status.out;

  config_.profiles = kTwoProfiles;
  writeConfig();
  r = post("/reload");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(eventually([&] { return !hasOrphan(getJson("/status"), "default/stuck", "batch"); },
                         kEventDeadline))
      << json::serialize(getJson("/status"));
  failed = waitForLine("FailedScheduling", "default/stuck", 3);
  ASSERT_TRUE(failed.has_value()) << run_->out() << run_->err();
  EXPECT_EQ(str(*failed, "profile"), "batch");
}

TEST_F(RunLive, StatusCommand) {
  ASSERT_NO_FATAL_FAILURE(start());
  CliRun status = cli("status --admin-socket " + socket_);
  EXPECT_EQ(status.exitCode, 0) << status.err;
  EXPECT_EQ(status.out.rfind("generation 1 (ready)\n", 0), 0u) << status.out;
  EXPECT_NE(status.out.find("profile default-scheduler\n"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("last reload: none\n"), std::string::npos) << status.out;

  CliRun reload = cli("reload --admin-socket " + socket_);
  EXPECT_EQ(reload.exitCode, 0) << reload.out << reload.err;
  EXPECT_EQ(reload.out, "reload applied: generation 2 (changed: none)\n");

  // The scheduling loop switches to the new generation between two cycles.
  json::value parsed;
  EXPECT_TRUE(eventually(
      [&] {
        status = cli("status --json --admin-socket " + socket_);
        boost::system::error_code ec;
        parsed = json::parse(status.out, ec);
        return status.exitCode == 0 && !ec && parsed.is_object() &&
               integer(parsed.as_object(), "generation") == 2;
      },
      kEventDeadline))
      << status.out << status.err;
  ASSERT_TRUE(parsed.is_object()) << status.out;
  EXPECT_EQ(parsed.as_object().at("ready"), json::value(true));
  status = cli("status --admin-socket " + socket_);
  EXPECT_EQ(status.out.rfind("generation 2 (ready)\n", 0), 0u) << status.out;
}

// Nothing runs between reloads here (no cycle, no binding, no pod waiting on Permit), so the
// replaced generations are released at once and none is reported as draining.
TEST_F(RunLive, ReplacedGenerationsAreReleasedWhenIdle) {
  ASSERT_NO_FATAL_FAILURE(start());
  ASSERT_TRUE(waitForLine("Binding", "default/web-0").has_value()) << run_->out();
  for (int generation = 2; generation <= 3; ++generation) {
    admin::ClientResponse r = post("/reload");
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(r.status, 200) << r.body;
  }
  json::object status;
  EXPECT_TRUE(eventually(
      [&] {
        status = getJson("/status");
        const json::value* retired = status.if_contains("retiredGenerationsInUse");
        return integer(status, "generation") == 3 && retired != nullptr && retired->is_array() &&
               retired->as_array().empty();
      },
      kEventDeadline))
      << json::serialize(status);
}

// Why a pod is pending, asked of the running scheduler: /debug/pods on the admin socket, the
// explain command, and the kubectl plugin through a stand-in kubectl whose `exec` runs the
// command it is given here, against this scheduler's socket.
TEST_F(RunLive, ExplainsAPendingPodFromItsLastAttempt) {
  ASSERT_NO_FATAL_FAILURE(start());
  addPod("huge", "1000");  // 1000 cpu: more than any node of examples/cluster.json has
  ASSERT_TRUE(waitForLine("FailedScheduling", "default/huge").has_value())
      << run_->out() << run_->err();

  json::object e = getJson("/debug/pods/default/huge");
  EXPECT_EQ(str(e, "pod"), "default/huge");
  EXPECT_EQ(str(e, "result"), "unschedulable");
  EXPECT_EQ(str(e, "profile"), "default-scheduler");
  const int64_t nodes = integer(e, "numAllNodes");
  ASSERT_GT(nodes, 0);
  // node-5 is tainted (TaintToleration runs first); every other node is short of cpu. Two
  // groups, 5 + 1 = 6 nodes.
  const json::array& rejected = e.at("rejected").as_array();
  ASSERT_EQ(rejected.size(), 2u) << json::serialize(e);
  EXPECT_EQ(str(rejected[0].as_object(), "plugin"), "NodeResourcesFit");
  EXPECT_EQ(integer(rejected[0].as_object(), "count"), nodes - 1);
  EXPECT_EQ(rejected[0].at("reasons").as_array().at(0), json::value("Insufficient cpu"));
  EXPECT_EQ(str(rejected[1].as_object(), "plugin"), "TaintToleration");
  EXPECT_EQ(rejected[1].at("nodes"), json::array{"node-5"});

  // The what-if list, evaluated on a copy of the cluster as it is now: the pod's 1000 cpu
  // lowered to what the roomiest node short of cpu has free fits there.
  const json::array& whatIfs = e.at("whatIfs").as_array();
  ASSERT_FALSE(whatIfs.empty()) << json::serialize(e);
  EXPECT_EQ(
      str(whatIfs[0].as_object(), "change").rfind("lower the cpu request from 1000000m to ", 0), 0u)
      << json::serialize(whatIfs);
  EXPECT_EQ(integer(whatIfs[0].as_object(), "nodes"), 1);
  EXPECT_EQ(str(e, "whatIfNote"), "");

  admin::ClientResponse text = get("/debug/pods/default/huge?format=text");
  EXPECT_EQ(text.status, 200);
  EXPECT_EQ(text.body.rfind("default/huge: unschedulable (profile default-scheduler", 0), 0u)
      << text.body;
  admin::ClientResponse html = get("/debug/pods/default/huge?format=html");
  EXPECT_EQ(html.status, 200);
  EXPECT_EQ(html.contentType, "text/html; charset=utf-8");
  EXPECT_EQ(html.body.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(get("/debug/pods/default/nobody").status, 404);
  EXPECT_EQ(get("/debug/pods/default").status, 404);
  EXPECT_EQ(get("/debug/pods/default/Bad_Name").status, 404);
  EXPECT_EQ(get("/debug/pods/default/huge?format=xml").status, 400);

  CliRun explained = cli("explain default/huge --admin-socket " + socket_);
  EXPECT_EQ(explained.exitCode, 0) << explained.err;
  EXPECT_EQ(explained.out, text.body);
  CliRun unknown = cli("explain default/nobody --admin-socket " + socket_);
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_NE(unknown.err.find("no failed scheduling attempt is kept for pod default/nobody"),
            std::string::npos)
      << unknown.err;
  CliRun malformed = cli("explain huge --admin-socket " + socket_);
  EXPECT_EQ(malformed.exitCode, 2);

  // kubectl schedhost explain: the Lease names the leader; kubectl exec runs schedhost there.
  const fs::path bin = dir_.path() / "bin";
  fs::create_directories(bin);
  const fs::path calls = dir_.path() / "kubectl.calls";
  std::ofstream(bin / "kubectl")
      << "#!/bin/sh\n"
         "echo \"$*\" >> "
      << calls.string()
      << "\n"
         "case \"$*\" in\n"
         "  'config view'*) echo team-a ;;\n"
         "  'get lease -n kube-system schedhost'*) echo schedhost-7d9f-x2_0b5c ;;\n"
         "  'exec -n kube-system schedhost-7d9f-x2 -c schedhost -- schedhost explain '*)\n"
         "    shift 9\n"
         "    pod=$1; shift\n"
         "    [ \"$1 $2\" = '--admin-socket /run/schedhost/admin.sock' ] || exit 9; shift 2\n"
         "    exec "
      << SCHEDHOST_BIN << " explain \"$pod\" --admin-socket " << socket_
      << " \"$@\" ;;\n"
         "  *) echo \"unexpected kubectl $*\" >&2; exit 9 ;;\n"
         "esac\n";
  fs::permissions(bin / "kubectl", fs::perms::owner_all);
  const std::string plugin =
      std::string("PATH=") + bin.string() + ":$PATH " + SCHEDHOST_KUBECTL_PLUGIN + " explain ";
  auto run = [&](const std::string& args) {
    auto out = dir_.path() / "plugin.out";
    auto err = dir_.path() / "plugin.err";
    int raw = std::system((plugin + args + " >" + out.string() + " 2>" + err.string()).c_str());
    CliRun r;
    r.exitCode = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  };
  CliRun viaKubectl = run("huge -n default");
  EXPECT_EQ(viaKubectl.exitCode, 0) << viaKubectl.err;
  EXPECT_EQ(viaKubectl.out, text.body);
  CliRun json = run("default/huge --json");
  EXPECT_EQ(json.exitCode, 0) << json.err;
  EXPECT_NE(json.out.find("\"pod\": \"default/huge\""), std::string::npos) << json.out;
  const fs::path page = dir_.path() / "huge.html";
  CliRun htmlRun = run("huge -n default --html " + page.string());
  EXPECT_EQ(htmlRun.exitCode, 0) << htmlRun.err;
  EXPECT_EQ(slurp(page), html.body);
  // Without -n, the context's namespace: team-a has no such pod.
  CliRun otherNamespace = run("huge");
  EXPECT_EQ(otherNamespace.exitCode, 1) << otherNamespace.err;
  EXPECT_NE(otherNamespace.err.find("team-a/huge"), std::string::npos) << otherNamespace.err;
  EXPECT_NE(slurp(calls).find("exec -n kube-system schedhost-7d9f-x2 -c schedhost -- schedhost "
                              "explain default/huge --admin-socket /run/schedhost/admin.sock"),
            std::string::npos)
      << slurp(calls);
}

}  // namespace
}  // namespace sh::cli::run_live_test
