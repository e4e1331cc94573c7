// Glue between the wrapper classes of plugin.hpp and the host services of plugin.h: the
// sh_state_ops of a cycle-state type, and the calls that report into a status of their own.
// Internal to the SDK (plugin.hpp includes it); may change in any release.
#ifndef SCHEDHOST_DETAIL_SERVICES_HPP
#define SCHEDHOST_DETAIL_SERVICES_HPP

#include <schedhost/plugin.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace schedhost::detail {

template <typename T>
void* cloneState(const void* p) {
  return new T(*static_cast<const T*>(p));
}
template <typename T>
void freeState(void* p) {
  delete static_cast<T*>(p);
}
// How the host copies and frees a cycle-state entry of type T: with T's copy constructor and
// delete.
template <typename T>
const sh_state_ops* stateOps() {
  static const sh_state_ops kOps = {&cloneState<T>, &freeState<T>};
  return &kOps;
}

// Whether the host's table has the slot that ends at byte `slotEnd` (offsetof the slot plus
// its size) and was added in ABI minor `sinceMinor`: a plugin checks both before calling a
// slot marked "since 1.N" (plugin.h, section 1), so that it still runs on an older host.
inline bool hostHasSlot(const sh_host_api* api, std::size_t slotEnd,
                        std::uint16_t sinceMinor) noexcept {
  return api != nullptr && api->abi_major == SH_ABI_MAJOR && api->abi_minor >= sinceMinor &&
         api->struct_size >= slotEnd;
}

// Runs a host call that reports into a status (call(sh_status*) returns the code), and returns
// that status with its reasons as an S (schedhost::Status).
template <typename S, typename Call>
S collectStatus(const sh_host_api* api, Call&& call) {
  sh_status* raw = api->status_create();
  if (raw == nullptr) {
    return S::error("out of memory");
  }
  S out(call(raw));
  for (std::size_t i = 0, n = api->status_reason_count(raw); i < n; ++i) {
    sh_str reason = api->status_reason_at(raw, i);
    out.addReason(reason.len == 0 ? std::string() : std::string(reason.ptr, reason.len));
  }
  api->status_destroy(raw);
  return out;
}

}  // namespace schedhost::detail

#endif  // SCHEDHOST_DETAIL_SERVICES_HPP
