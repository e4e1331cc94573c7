// How the host services of the ABI (host_api.cc, object_services.cc) treat what a plugin
// passes them: a NULL pointer where one is needed, a NULL string with a length, a length beyond
// kMaxArgumentBytes or a count beyond kMaxArgumentCount is refused: the call does nothing (or
// returns its "nothing" value), a failure is counted on the plugin the thread is running
// (PluginInstance::failures) and in hostServiceMisuses(), and the first misuse of each service
// by each plugin is logged as a warning (later ones at debug level).
#pragma once

#include <schedhost/plugin.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "host/common/status.h"
#include "host/framework/host_services.h"

namespace sh::service {

inline constexpr size_t kMaxArgumentBytes = size_t{1} << 20;
inline constexpr size_t kMaxArgumentCount = size_t{1} << 20;

// Counts and logs a refused call of `service`; `what` says what was wrong with it.
void misuse(const char* service, const std::string& what);

// The string argument `what` of `service`, or nullopt (counted) when it cannot be one.
std::optional<std::string_view> text(const char* service, const char* what, const char* p,
                                     size_t n);

// Whether the out-parameter `what` of `service` is there; counted when it is not.
template <typename T>
bool present(const char* service, const char* what, T* out) {
  if (out == nullptr) {
    misuse(service, std::string(what) + " NULL");
    return false;
  }
  return true;
}

// A reason of the host's own (st may be NULL: then there is nowhere to put it).
void addReason(sh_status* st, std::string_view reason);
// Copies the reasons of `s` into `st` (when not NULL) and returns its code.
sh_code reportStatus(const Status& s, sh_status* st);

}  // namespace sh::service
