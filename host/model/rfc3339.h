// RFC 3339 timestamps as metav1.Time reads them (Go's time.RFC3339 layout, with optional
// fractional seconds): "2024-05-01T12:30:00Z", "2024-05-01T12:30:00.123456789+02:00".
#ifndef SCHEDHOST_HOST_MODEL_RFC3339_H
#define SCHEDHOST_HOST_MODEL_RFC3339_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace sh::model {

// Unix time in nanoseconds, saturated to the int64 range; nullopt when malformed.
std::optional<int64_t> parseRfc3339Nanos(std::string_view s);

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_RFC3339_H
