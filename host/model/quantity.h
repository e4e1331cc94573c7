// Kubernetes resource.Quantity: parsing and the integer conversions kube-scheduler uses.
//
// A quantity is kept exactly, as a signed count of nano-units, the precision
// resource.ParseQuantity keeps: finer values are rounded away from zero to the next nano-unit,
// and magnitudes are capped at 2^63-1 units, as upstream does. No floating point anywhere.
#ifndef SCHEDHOST_HOST_MODEL_QUANTITY_H
#define SCHEDHOST_HOST_MODEL_QUANTITY_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sh::model {

// GCC/Clang 128-bit integers; __extension__ keeps -Wpedantic quiet.
__extension__ typedef __int128 int128_t;

// Clamps to the int64 range.
int64_t saturateInt64(int128_t v);

class Quantity {
 public:
  // Longest string accepted; upstream has no limit, but exact parsing is quadratic in length.
  static constexpr std::size_t kMaxLength = 1024;
  static constexpr int128_t kNanosPerUnit = 1'000'000'000;

  Quantity() = default;
  static Quantity fromNanos(int128_t nanos) { return Quantity(nanos); }
  static Quantity fromInt(int64_t units) { return Quantity(int128_t{units} * kNanosPerUnit); }

  int128_t nanos() const { return nanos_; }
  bool isZero() const { return nanos_ == 0; }
  bool negative() const { return nanos_ < 0; }

  // Quantity.Value(): whole units, rounded away from zero, saturated to int64.
  int64_t value() const;
  // Quantity.MilliValue(): milli-units, rounded away from zero, saturated to int64.
  int64_t milliValue() const;
  // Milli-units rounded away from zero, without saturation. The API server rounds every
  // ResourceList entry up to milli precision (SetDefaults_ResourceList), so sums of these
  // are exact sums of the defaulted quantities.
  int128_t milliCeil() const;

  friend bool operator==(const Quantity&, const Quantity&) = default;

 private:
  explicit Quantity(int128_t nanos) : nanos_(nanos) {}
  int128_t nanos_ = 0;
};

// resource.ParseQuantity. On failure returns nullopt and, when `error` is given, sets it to
// upstream's message: "quantities must match the regular expression '...'" (ErrFormatWrong),
// "unable to parse quantity's suffix" (ErrSuffix), or "quantity is too long".
std::optional<Quantity> parseQuantity(std::string_view s, std::string* error = nullptr);

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_QUANTITY_H
