#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::recommender::csv {

// Splits one CSV line (RFC 4180 quoting); nullopt for an unterminated quote.
std::optional<std::vector<std::string_view>> split(std::string_view line,
                                                   std::vector<std::string>& unquoted);
// Parses a whole field as a double; nullopt when it is not entirely a number.
std::optional<double> to_double(std::string_view field);
// Parses a whole field as a whole number; nullopt when it is not entirely one.
std::optional<long long> to_integer(std::string_view field);
// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string quote(const std::string& field);

}  // namespace tailor::recommender::csv
