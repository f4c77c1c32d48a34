#include "cli/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "recommender/csv.h"

namespace tailor::cli {

std::string json_string(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      q += buf;
      continue;
    }
    q += c;
  }
  return q + '"';
}

std::string printed(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string json_number(double v) { return std::isfinite(v) ? printed("%.6g", v) : "null"; }

std::string json_exact(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "null";
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, *v).ptr;
  return std::string(buf, end);
}

std::string csv_field(std::string_view s) { return recommender::csv::quote(std::string(s)); }

}  // namespace tailor::cli
