#include "host/plugin/permissions.h"

#include <pwd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

namespace sh::plugin {
namespace {

std::atomic<bool> checksDisabled{false};

const std::string kOrFlag = std::string(", or pass ") + kInsecureFlag + " for development";

std::string octalMode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::optional<uid_t> uidOf(const std::string& user) {
  if (user.empty()) {
    return std::nullopt;
  }
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<std::size_t>(size) : 16384);
  struct passwd entry {};
  struct passwd* found = nullptr;
  if (::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr) {
    return std::nullopt;
  }
  return found->pw_uid;
}

// Who may own plugin files and the directories above them.
struct Owners {
  uid_t self = ::geteuid();
  std::string serviceUser;
  std::optional<uid_t> service;

  bool accepts(uid_t uid) const { return uid == 0 || uid == self || uid == service; }

  // "root, the current user (uid 1000) or the service user schedhost (uid 998)"
  std::string describe() const {
    std::string out = "root";
    if (self != 0) {
      out += ", the current user (uid " + std::to_string(self) + ")";
    }
    if (service) {
      out += " or the service user " + serviceUser + " (uid " + std::to_string(*service) + ")";
    } else if (!serviceUser.empty()) {
      out += " (the service user " + serviceUser + " does not exist here)";
    }
    return out;
  }
};

// The rule `status` breaks, for `what` ("the file" or "the directory /x") at `path`.
std::string judge(const std::string& what, const std::string& path, const struct stat& status,
                  bool isDirectory, const Owners& owners) {
  if (!owners.accepts(status.st_uid)) {
    return "refused: " + what + " is owned by uid " + std::to_string(status.st_uid) + ", not by " +
           owners.describe() + "; give it to root (chown root " + path + ")" + kOrFlag;
  }
  const bool group = (status.st_mode & S_IWGRP) != 0;
  const bool world = (status.st_mode & S_IWOTH) != 0;
  if (!group && !world) {
    return "";
  }
  const bool sticky = isDirectory && (status.st_mode & S_ISVTX) != 0;
  if (sticky && status.st_uid == 0) {
    return "";  // like /tmp: nobody but us can rename or remove what we put there
  }
  std::string writable = group && world ? "group- and world-writable"
                         : group        ? "group-writable"
                                        : "world-writable";
  std::string chmod = group && world ? "go-w" : group ? "g-w" : "o-w";
  return "refused: " + what + " is " + writable + " (mode " + octalMode(status.st_mode) + ")" +
         (sticky ? ", and though sticky it is not owned by root" : "") +
         "; make it writable by its owner only (chmod " + chmod + " " + path + ")" + kOrFlag;
}

bool inside(const std::string& path, const std::string& root) {
  if (root == "/") {
    return true;
  }
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
         path[root.size()] == '/';
}

}  // namespace

std::string linkRefusal(const std::string& asGiven, const std::string& canonicalPath,
                        const std::string& pluginRoot) {
  if (checksDisabled.load() || pluginRoot.empty() || inside(canonicalPath, pluginRoot)) {
    return "";
  }
  return "refused: " + asGiven + " leads to " + canonicalPath +
         " through a symbolic link, outside the plugin directory " + pluginRoot +
         "; put the plugin file itself in " + pluginRoot + " instead of a link to it" + kOrFlag;
}

std::string ownerModeRefusal(const std::string& canonicalPath, const struct stat& fileStatus,
                             const std::string& serviceUser) {
  if (checksDisabled.load()) {
    return "";
  }
  Owners owners;
  owners.serviceUser = serviceUser;
  owners.service = uidOf(serviceUser);
  if (std::string problem = judge("the file", canonicalPath, fileStatus, false, owners);
      !problem.empty()) {
    return problem;
  }
  std::filesystem::path dir = std::filesystem::path(canonicalPath).parent_path();
  while (!dir.empty()) {
    struct stat status {};
    const std::string shown = dir.string();
    if (::stat(shown.c_str(), &status) != 0) {
      return "refused: the directory " + shown + " cannot be checked (" + std::strerror(errno) +
             "); make it readable by the user the host runs as" + kOrFlag;
    }
    if (std::string problem = judge("the directory " + shown, shown, status, true, owners);
        !problem.empty()) {
      return problem;
    }
    if (dir == dir.root_path()) {
      break;
    }
    dir = dir.parent_path();
  }
  return "";
}

void disableTrustChecks() {
  checksDisabled.store(true);
  const std::string message = std::string(kInsecureFlag) +
                              ": plugin files are loaded without checking their owner, mode "
                              "or symbolic links; never use this outside development";
  // Straight to stderr: shown whatever --log-level or the logger's sinks say.
  std::fprintf(stderr, "WARNING: %s\n", message.c_str());
  std::fflush(stderr);
}

bool trustChecksDisabled() { return checksDisabled.load(); }

}  // namespace sh::plugin
