// resource.Quantity as the binder compares storage sizes: parsed from the API's string form
// ("5Gi", "1.5G", "100M", "1e3", "500m") or a JSON number, held exactly to the nano unit (the
// finest a Quantity keeps; a finer fraction rounds up, as upstream's parsing does), compared
// with Cmp and read with Value (rounded up to a whole unit).
// Upstream: k8s.io/apimachinery/pkg/api/resource/quantity.go (ParseQuantity, Cmp, Value).
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_QUANTITY_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_QUANTITY_H

#include <schedhost/plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace schedhost::plugins::volumebinding {

// A 128-bit integer (a GCC and Clang extension, named once so that -Wpedantic accepts it).
__extension__ typedef __int128 Int128;

class Quantity {
 public:
  // Zero, what an absent quantity reads as.
  Quantity() = default;

  // Parses the API's string form; false (and *this unchanged) when it does not parse.
  bool parse(std::string_view text);
  // A quantity from its JSON member: a string or a number. `error` names what is wrong when
  // the member is present and does not parse; an absent or null member is zero.
  static Quantity fromJson(const Json& node, std::string* error);

  // Upstream's Cmp: -1, 0 or 1.
  int cmp(const Quantity& o) const noexcept {
    return nanos_ < o.nanos_ ? -1 : (nanos_ > o.nanos_ ? 1 : 0);
  }
  // Upstream's Value: whole units, rounded up; saturated at the int64 range.
  int64_t value() const noexcept;

 private:
  Int128 nanos_ = 0;  // the value in units of 1e-9, saturated far beyond any real size
};

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_QUANTITY_H
