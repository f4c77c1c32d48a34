#include "recommender/csv.h"

#include <charconv>

namespace tailor::recommender::csv {

std::optional<std::vector<std::string_view>> split(std::string_view line,
                                                   std::vector<std::string>& unquoted) {
  std::vector<std::string_view> fields;
  unquoted.clear();
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find('"') == std::string_view::npos) {
    std::size_t begin = 0;
    for (;;) {
      std::size_t comma = line.find(',', begin);
      fields.push_back(line.substr(begin, comma - begin));
      if (comma == std::string_view::npos) return fields;
      begin = comma + 1;
    }
  }
  // Quoted fields are rare (container names); copy them so the views stay valid.
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        parts.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        parts.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  unquoted = std::move(parts);
  for (const auto& p : unquoted) fields.emplace_back(p);
  return fields;
}

std::optional<double> to_double(std::string_view field) {
  while (!field.empty() && field.front() == ' ') field.remove_prefix(1);
  while (!field.empty() && field.back() == ' ') field.remove_suffix(1);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) return std::nullopt;
  return value;
}

std::optional<long long> to_integer(std::string_view field) {
  while (!field.empty() && field.front() == ' ') field.remove_prefix(1);
  while (!field.empty() && field.back() == ' ') field.remove_suffix(1);
  long long value = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) return std::nullopt;
  return value;
}

std::string quote(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string q = "\"";
  for (char c : field) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + '"';
}

}  // namespace tailor::recommender::csv
