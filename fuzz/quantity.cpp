// Quantity parsing (kube/model/quantity.h): any text either parses or fails with QuantityError;
// what parses prints canonically, and the canonical text parses back to the same value and prints
// the same (apimachinery's String() is a fixed point of ParseQuantity). The format may change once:
// a binary value that is no whole number of Ki prints as plain digits ("1.5Ki" is "1536"), which
// read back as decimal, as in apimachinery.
#include "kube/model/quantity.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"

using tailor::fuzz::check;
using tailor::kube::Quantity;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto parsed = Quantity::try_parse(text, &error);
  if (!parsed) {
    check(!error.empty(), "a refused quantity says why", text);
    return 0;
  }
  std::string canonical = parsed->to_string();
  auto again = Quantity::try_parse(canonical, &error);
  check(again.has_value(), "the canonical form parses", canonical);
  check(*again == *parsed, "the canonical form keeps the value", canonical);
  if (again->to_string() != canonical) {
    // Binary printed as plain digits, read back as decimal: "62.5Ki" is "64000", then "64k".
    check(canonical.find_first_not_of("-0123456789") == std::string::npos,
          "only plain digits change format", canonical);
    canonical = again->to_string();
    again = Quantity::try_parse(canonical, &error);
    check(again.has_value() && *again == *parsed, "the decimal form keeps the value", canonical);
  }
  check(again->to_string() == canonical, "the canonical form is a fixed point", canonical);
  // The accessors saturate rather than overflow (UBSan watches the arithmetic).
  (void)parsed->value();
  (void)parsed->milli_value();
  (void)parsed->as_double();
  (void)(-*parsed);
  return 0;
}
