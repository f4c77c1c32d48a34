#include "tests/e2e/report_reader.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace tailor::e2e {

std::vector<std::vector<std::string>> csv_records(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(std::exchange(field, {}));
    } else if (c == '\n') {
      record.push_back(std::exchange(field, {}));
      out.push_back(std::exchange(record, {}));
    } else if (c != '\r') {
      field += c;
    }
  }
  if (!field.empty() || !record.empty()) {
    record.push_back(std::move(field));
    out.push_back(std::move(record));
  }
  return out;
}

namespace {

std::string unescaped(const std::string& html) {
  static const std::pair<const char*, char> kReferences[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < html.size(); ++i) {
    bool replaced = false;
    for (const auto& [reference, c] : kReferences) {
      if (html.compare(i, std::char_traits<char>::length(reference), reference) == 0) {
        out += c;
        i += std::char_traits<char>::length(reference) - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += html[i];
  }
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> html_table_rows(const std::string& page) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t row = page.find("<tr>"); row != std::string::npos;
       row = page.find("<tr>", row + 1)) {
    const std::size_t end = page.find("</tr>", row);
    if (end == std::string::npos) break;
    std::vector<std::string> cells;
    for (std::size_t cell = page.find("<t", row + 4); cell != std::string::npos && cell < end;
         cell = page.find("<t", cell + 1)) {
      if (page[cell + 2] != 'd' && page[cell + 2] != 'h') continue;
      const std::size_t open = page.find('>', cell);
      const std::size_t close = page.find("</t", open);
      cells.push_back(unescaped(page.substr(open + 1, close - open - 1)));
      cell = close;
    }
    out.push_back(std::move(cells));
  }
  return out;
}

std::optional<Shown> shown_number(const std::string& cell) {
  static const std::pair<const char*, double> kUnits[] = {{"ks", 1e3},
                                                          {"Ms", 1e6},
                                                          {"Ki", 1024.0},
                                                          {"Mi", 1024.0 * 1024},
                                                          {"Gi", 1024.0 * 1024 * 1024},
                                                          {"m", 1e-3},
                                                          {"k", 1e3},
                                                          {"M", 1e6},
                                                          {"s", 1},
                                                          {"d", 1},
                                                          {"", 1}};
  std::size_t i = 0;
  if (i < cell.size() && (cell[i] == '+' || cell[i] == '-')) ++i;
  const std::size_t digits = i;
  while (i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i]))) ++i;
  if (i == digits) return std::nullopt;
  int decimals = 0;
  if (i < cell.size() && cell[i] == '.') {
    for (++i; i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i])); ++i) {
      ++decimals;
    }
  }
  const std::string suffix = cell.substr(i);
  for (const auto& [unit, scale] : kUnits) {
    if (suffix != unit) continue;
    return Shown{.value = std::strtod(cell.substr(0, i).c_str(), nullptr) * scale,
                 .tolerance = 0.5 * std::pow(10.0, -decimals) * scale};
  }
  return std::nullopt;
}

}  // namespace tailor::e2e
