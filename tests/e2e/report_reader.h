// `tailor report`'s csv, html and table outputs read back as a person would, so that an e2e test
// can hold each field against the json row of the same cluster state: RFC 4180 records, the
// cells of each HTML table row (character references undone), and a shown quantity ("250m",
// "+1.5Gi", "-0.32", "3.2d", "12k", "3.6ks") as the number it stands for with the rounding its
// printed digits allow.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tailor::e2e {

// The records of a CSV text (quoted fields may hold commas, quotes and line breaks).
std::vector<std::vector<std::string>> csv_records(const std::string& text);

// The text of each cell (<td> and <th>) of each <tr> of an HTML page, in order.
std::vector<std::vector<std::string>> html_table_rows(const std::string& page);

struct Shown {
  double value = 0;
  double tolerance = 0;  // half a unit of the last digit printed
};

// A shown figure: an optional sign, digits with an optional fraction, then a unit suffix among
// m (milli), Ki Mi Gi (binary), k M (thousands, millions), ks Ms (kilo/mega core-seconds), s,
// d (days). nullopt for "-" (unknown) or anything else.
std::optional<Shown> shown_number(const std::string& cell);

}  // namespace tailor::e2e
