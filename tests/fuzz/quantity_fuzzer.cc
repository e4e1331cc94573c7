// resource.Quantity strings (model/quantity.cc). A refusal has upstream's message; an accepted
// quantity written back in nano-units ("<n>n") parses to the same value, and a quantity
// without a sign parses with "-" in front to its negation (rounding is away from zero and the
// cap is on the magnitude, so both are symmetric).
#include <string>

#include "host/model/quantity.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using sh::model::int128_t;

std::string decimal(int128_t v) {
  const bool negative = v < 0;
  std::string digits;
  do {
    const int128_t digit = v % 10;
    digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -digit : digit)));
    v /= 10;
  } while (v != 0);
  return negative ? "-" + digits : digits;
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = sh::fuzz::asText(data, size);
  std::string error;
  const std::optional<sh::model::Quantity> q = sh::model::parseQuantity(text, &error);
  if (!q) {
    sh::fuzz::check(!error.empty(), "a refused quantity has an error message");
    return 0;
  }
  const std::optional<sh::model::Quantity> nanos =
      sh::model::parseQuantity(decimal(q->nanos()) + "n");
  sh::fuzz::check(nanos.has_value() && *nanos == *q, "a quantity in nano-units reads the same");
  if (text.size() < sh::model::Quantity::kMaxLength && text[0] != '-' && text[0] != '+') {
    const std::optional<sh::model::Quantity> negated =
        sh::model::parseQuantity("-" + std::string(text));
    sh::fuzz::check(negated.has_value() && negated->nanos() == -q->nanos(),
                    "a quantity with a minus sign reads as its negation");
  }
  return 0;
}
