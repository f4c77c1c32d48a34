// JSON and CSV text for the CLI's machine-readable outputs (replay's --json, report's -o json and
// -o csv): strings escaped as RFC 8259 and RFC 4180 want, numbers in the shortest round form; and
// the one printf-style number format of the CLI's tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tailor::cli {

// One number through a printf conversion for a double ("%.3f", "%+.2f", "%.0fm").
std::string printed(const char* format, double v);
// "..." with quote, backslash and control characters escaped (\", \\, \u00XX).
std::string json_string(std::string_view s);
// %.6g (replay's scores); non-finite values, which JSON has no spelling for, as null.
std::string json_number(double v);
// The shortest text that reads back as the same double (bytes stay whole: 268435456), null when
// unset or not finite.
std::string json_exact(const std::optional<double>& v);
// A CSV field: as is, or in double quotes (quotes doubled) when it holds a comma, quote, CR or LF.
std::string csv_field(std::string_view s);

}  // namespace tailor::cli
