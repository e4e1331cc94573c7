// The host's Status: a code, its reasons and the plugin that produced it.
// Mirrors kube-scheduler's framework.Status (upstream framework/interface.go: Status, Code).
#pragma once

#include <schedhost/plugin.h>

#include <string>
#include <string_view>
#include <vector>

namespace sh {

// The names of sh_code values, in enum order. Keep in step with plugin.h.
std::string_view codeName(sh_code code);

class Status {
 public:
  Status() = default;
  explicit Status(sh_code code) : code_(code) {}
  Status(sh_code code, std::string reason) : code_(code) { reasons_.push_back(std::move(reason)); }

  static Status success() { return Status(); }
  static Status error(std::string reason) { return Status(SH_ERROR, std::move(reason)); }

  sh_code code() const { return code_; }
  void setCode(sh_code code) { code_ = code; }
  bool ok() const { return code_ == SH_SUCCESS; }
  bool isSkip() const { return code_ == SH_SKIP; }
  bool isWait() const { return code_ == SH_WAIT; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending.
  bool isRejected() const {
    return code_ == SH_UNSCHEDULABLE || code_ == SH_UNSCHEDULABLE_AND_UNRESOLVABLE ||
           code_ == SH_PENDING;
  }

  const std::vector<std::string>& reasons() const { return reasons_; }
  std::vector<std::string>& mutableReasons() { return reasons_; }
  void addReason(std::string reason) { reasons_.push_back(std::move(reason)); }
  // The reasons joined with ", ".
  std::string message() const;

  const std::string& plugin() const { return plugin_; }
  void setPlugin(std::string plugin) { plugin_ = std::move(plugin); }

  // Replaces the reasons with one: prefix + message() (used to wrap errors).
  void wrap(std::string_view prefix);

 private:
  sh_code code_ = SH_SUCCESS;
  std::vector<std::string> reasons_;
  std::string plugin_;
};

}  // namespace sh

// The ABI's opaque status handle: a plugin writes reasons into the host's Status.
struct sh_status {
  sh::Status status;
};
