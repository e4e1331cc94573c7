#include "host/connectors/kube/exec_credential.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <set>

#include "host/connectors/kube/rest_config.h"

extern char** environ;  // NOLINT(readability-identifier-naming): POSIX's name

namespace sh::kube {
namespace {

namespace json = boost::json;
using SteadyClock = std::chrono::steady_clock;

// client-go's installHintVerboseHelp, shown with a missing command's installHint.
constexpr std::string_view kInstallHintHelp =
    "\n\nIt looks like you are trying to use a client-go credential plugin that is not "
    "installed.\n\nTo learn more about this feature, consult the documentation available "
    "at:\n      "
    "https://kubernetes.io/docs/reference/access-authn-authz/authentication/"
    "#client-go-credential-plugins";
constexpr std::size_t kMaxStderrBytes = std::size_t{64} << 10;
// Upstream's `sometimes`: the help text at most this often per hour.
constexpr std::size_t kHelpTextsPerHour = 10;

const json::string* stringMember(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value != nullptr ? value->if_string() : nullptr;
}

// A file descriptor closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void adopt(int fd) {
    reset();
    fd_ = fd;
  }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

bool makePipe(Fd& readEnd, Fd& writeEnd, std::string& error) {
  std::array<int, 2> fds{-1, -1};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) {
    error = std::string("exec: pipe: ") + std::strerror(errno);
    return false;
  }
  readEnd.adopt(fds[0]);
  writeEnd.adopt(fds[1]);
  return true;
}

// This process's environment, then `extra` (a name set twice keeps the last value).
std::vector<std::string> childEnvironment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::set<std::string> overridden;
  for (const auto& [name, value] : extra) overridden.insert(name);
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (overridden.count(std::string(text.substr(0, equals))) == 0) env.emplace_back(text);
  }
  std::set<std::string> written;
  for (auto it = extra.rbegin(); it != extra.rend(); ++it) {
    if (written.insert(it->first).second) env.push_back(it->first + "=" + it->second);
  }
  return env;
}

// The last non-empty line of `text`, at most 200 bytes.
std::string lastLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const auto start = text.find_last_of('\n');
  std::string_view line = start == std::string_view::npos ? text : text.substr(start + 1);
  if (line.size() > 200) line = line.substr(0, 200);
  return std::string(line);
}

struct RunResult {
  bool started = false;
  int spawnErrno = 0;  // posix_spawn's error when !started
  bool timedOut = false;
  bool outputTooLarge = false;
  int exitCode = -1;  // -1: killed by a signal (see signal)
  int signal = 0;
  std::string out, err;
};

// Runs argv with env, reading stdout (up to kMaxExecOutputBytes) and stderr (up to
// kMaxStderrBytes) until both end, within `timeout`.
RunResult runPlugin(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                    bool interactive, std::chrono::milliseconds timeout, std::string& error) {
  RunResult result;
  Fd outRead, outWrite, errRead, errWrite;
  if (!makePipe(outRead, outWrite, error) || !makePipe(errRead, errWrite, error)) return result;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!interactive) {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, outWrite.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, errWrite.get(), 2);
  // Sockets of this process (the API server's, the admin endpoint's) are not the plugin's.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  sigset_t all;
  sigfillset(&all);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  // Its own process group, so that a timeout ends what it started too; an interactive plugin
  // stays in the terminal's foreground group, where it may read.
  if (!interactive) flags |= POSIX_SPAWN_SETPGROUP;
  posix_spawnattr_setflags(&attributes, flags);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setpgroup(&attributes, 0);

  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& entry : env) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int spawned =
      ::posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  outWrite.reset();
  errWrite.reset();
  if (spawned != 0) {
    result.spawnErrno = spawned;
    return result;
  }
  result.started = true;

  const auto deadline = SteadyClock::now() + timeout;
  std::array<pollfd, 2> fds{pollfd{outRead.get(), POLLIN, 0}, pollfd{errRead.get(), POLLIN, 0}};
  std::array<char, 16384> buffer{};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      break;
    }
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        continue;
      }
      std::string& sink = i == 0 ? result.out : result.err;
      const std::size_t limit = i == 0 ? kMaxExecOutputBytes : kMaxStderrBytes;
      const std::size_t room = limit > sink.size() ? limit - sink.size() : 0;
      sink.append(buffer.data(), std::min(room, static_cast<std::size_t>(n)));
      if (i == 0 && static_cast<std::size_t>(n) > room) {
        result.outputTooLarge = true;
        fds[0].fd = -1;
        fds[1].fd = -1;
      }
    }
  }
  if (result.timedOut || result.outputTooLarge) {
    ::kill(interactive ? pid : -pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace

bool parseExecCredential(std::string_view text, std::string_view apiVersion, ExecCredential& out,
                         std::string& error) {
  boost::system::error_code ec;
  json::parse_options limits;
  limits.max_depth = 64;
  const json::value parsed = json::parse(text, ec, {}, limits);
  if (ec) {
    error = "decoding stdout: not JSON (" + ec.message() + ")";
    return false;
  }
  const json::object* object = parsed.if_object();
  if (object == nullptr) {
    error = "decoding stdout: not a JSON object";
    return false;
  }
  const json::string* kind = stringMember(*object, "kind");
  if (kind == nullptr || kind->empty()) {
    error = "decoding stdout: Object 'Kind' is missing";
    return false;
  }
  const json::string* version = stringMember(*object, "apiVersion");
  const std::string returned = version != nullptr ? std::string(*version) : std::string();
  if (returned != apiVersion) {
    error = "exec plugin is configured to use API version " + std::string(apiVersion) +
            ", plugin returned version " + (returned.empty() ? "\"\"" : returned);
    return false;
  }
  if (*kind != "ExecCredential") {
    error = "decoding stdout: no kind \"" + std::string(*kind) + "\" is registered for version \"" +
            returned + "\"";
    return false;
  }
  const json::value* statusValue = object->if_contains("status");
  if (statusValue == nullptr || statusValue->is_null()) {
    error = "exec plugin didn't return a status field";
    return false;
  }
  const json::object* status = statusValue->if_object();
  if (status == nullptr) {
    error = "decoding stdout: status: not an object";
    return false;
  }
  ExecCredential credential;
  for (auto [key, field] : {std::pair{"token", &credential.token},
                            std::pair{"clientCertificateData", &credential.clientCertPem},
                            std::pair{"clientKeyData", &credential.clientKeyPem}}) {
    const json::value* value = status->if_contains(key);
    if (value == nullptr || value->is_null()) continue;
    if (!value->is_string()) {
      error = std::string("decoding stdout: status.") + key + ": not a string";
      return false;
    }
    *field = std::string(value->get_string());
  }
  if (credential.token.empty() && credential.clientCertPem.empty() &&
      credential.clientKeyPem.empty()) {
    error = "exec plugin didn't return a token or cert/key pair";
    return false;
  }
  if (credential.clientCertPem.empty() != credential.clientKeyPem.empty()) {
    error = "exec plugin returned only certificate or key, not both";
    return false;
  }
  if (std::string why = bearerTokenProblem(credential.token); !why.empty()) {
    error = "exec plugin returned an unusable token: " + why;
    return false;
  }
  if (const json::value* expiry = status->if_contains("expirationTimestamp");
      expiry != nullptr && !expiry->is_null()) {
    std::optional<TimePoint> when;
    if (expiry->is_string()) when = parseTime(std::string_view(expiry->get_string()));
    if (!when) {
      error = "decoding stdout: status.expirationTimestamp: not an RFC 3339 time";
      return false;
    }
    credential.expiry = when;
  }
  out = std::move(credential);
  return true;
}

std::string execInfo(const ExecConfig& config, bool interactive) {
  json::object spec;
  spec["interactive"] = interactive;
  if (!config.clusterJson.empty()) {
    boost::system::error_code ec;
    json::value cluster = json::parse(config.clusterJson, ec);
    if (!ec) spec["cluster"] = std::move(cluster);
  }
  json::object info;
  info["kind"] = "ExecCredential";
  info["apiVersion"] = config.apiVersion;
  info["spec"] = std::move(spec);
  return json::serialize(info);
}

ExecCredentialSource::ExecCredentialSource(ExecConfig config, Options options)
    : config_(std::move(config)), options_(std::move(options)) {}

std::shared_ptr<const ExecCredential> ExecCredentialSource::get(std::string& error) {
  std::lock_guard lock(mutex_);
  if (cached_ != nullptr) {
    Clock& clock = options_.clock != nullptr ? *options_.clock : systemClock();
    if (!cached_->expiry || clock.now() <= *cached_->expiry) return cached_;
  }
  return runLocked(error);
}

std::shared_ptr<const ExecCredential> ExecCredentialSource::refreshAfterUnauthorized(
    const std::shared_ptr<const ExecCredential>& used, std::string& error) {
  std::lock_guard lock(mutex_);
  if (cached_ != nullptr && cached_ != used) return cached_;  // rotated already
  return runLocked(error);
}

std::uint64_t ExecCredentialSource::runs() const {
  std::lock_guard lock(mutex_);
  return runs_;
}

std::shared_ptr<const ExecCredential> ExecCredentialSource::runLocked(std::string& error) {
  bool interactive = false;
  const bool terminal =
      options_.stdinIsTerminal ? options_.stdinIsTerminal() : ::isatty(STDIN_FILENO) == 1;
  switch (config_.interactiveMode) {
    case ExecInteractiveMode::kNever:
      break;
    case ExecInteractiveMode::kIfAvailable:
      interactive = terminal;
      break;
    case ExecInteractiveMode::kAlways:
      if (!terminal) {
        error = "exec plugin cannot support interactive mode: standard input is not a terminal";
        return nullptr;
      }
      interactive = true;
      break;
  }
  std::vector<std::pair<std::string, std::string>> extra = config_.env;
  extra.emplace_back("KUBERNETES_EXEC_INFO", execInfo(config_, interactive));
  std::vector<std::string> argv{config_.command};
  argv.insert(argv.end(), config_.args.begin(), config_.args.end());
  ++runs_;
  RunResult run = runPlugin(argv, childEnvironment(extra), interactive, options_.timeout, error);
  for (std::string_view rest = run.err; !rest.empty();) {
    const auto end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    if (!line.empty()) spdlog::warn("exec plugin {}: {}", config_.command, line);
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  if (!run.started) {
    if (!error.empty()) return nullptr;  // no pipe
    if (run.spawnErrno == ENOENT) {
      error = "exec: executable " + config_.command + " not found";
      // Upstream's `sometimes`: the long help at most kHelpTextsPerHour times an hour.
      if (const auto now = SteadyClock::now(); now - hintWindow_ >= std::chrono::hours(1)) {
        hintWindow_ = now;
        notFoundHints_ = 0;
      }
      if (notFoundHints_ < kHelpTextsPerHour) {
        ++notFoundHints_;
        error += kInstallHintHelp;
        if (!config_.installHint.empty()) error += "\n\n" + config_.installHint;
      }
    } else {
      error = "exec: " + config_.command + ": " + std::strerror(run.spawnErrno);
    }
    return nullptr;
  }
  if (run.timedOut) {
    error = fmt::format("exec: executable {} did not finish within {:g} s and was killed",
                        config_.command, static_cast<double>(options_.timeout.count()) / 1000);
    return nullptr;
  }
  if (run.outputTooLarge) {
    error = "exec: executable " + config_.command + " wrote more than " +
            std::to_string(kMaxExecOutputBytes >> 10) + " KiB to stdout and was killed";
    return nullptr;
  }
  if (run.exitCode != 0) {
    error = "exec: executable " + config_.command +
            (run.exitCode > 0 ? " failed with exit code " + std::to_string(run.exitCode)
                              : " was killed by signal " + std::to_string(run.signal));
    if (const std::string why = lastLine(run.err); !why.empty()) error += ": " + why;
    return nullptr;
  }
  auto credential = std::make_shared<ExecCredential>();
  if (!parseExecCredential(run.out, config_.apiVersion, *credential, error)) return nullptr;
  cached_ = std::move(credential);
  return cached_;
}

}  // namespace sh::kube
