// What the dashboard tests need to know about PromQL: the metric names an expression selects,
// and the Grafana variables it holds, replaced the way Grafana would before sending it.
#pragma once

#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace tailor::charts {

// Grafana's variables as the tests resolve them: the built-in intervals, the dashboards'
// query variables at ".*" (their "All" value, or every workload at once), and the Workloads
// dashboard's price constants at 1.
inline const std::map<std::string, std::string>& grafana_variables() {
  static const std::map<std::string, std::string> kValues = {
      {"$__rate_interval", "1m"}, {"$__range", "1h"},   {"$job", ".*"},
      {"$instance", ".*"},        {"$namespace", ".*"}, {"$workload", ".*"},
      {"$container", ".*"},       {"$cpu_price", "1"},  {"$memory_price", "1"}};
  return kValues;
}

// The same with some variables set to given values first (e.g. {"$workload", "web"}).
inline std::string substitute_grafana_variables(std::string expr,
                                                const std::map<std::string, std::string>& set);

// Replaces every variable of grafana_variables(); throws std::invalid_argument naming a `$`
// variable it does not know (Prometheus would see it verbatim).
inline std::string substitute_grafana_variables(std::string expr) {
  for (std::size_t pos = expr.find('$'); pos != std::string::npos; pos = expr.find('$', pos)) {
    bool replaced = false;
    for (const auto& [name, value] : grafana_variables()) {
      // Whole names only: "$__range" is not the start of "$__rate_interval".
      const std::size_t after = pos + name.size();
      const bool whole =
          after >= expr.size() ||
          !(std::isalnum(static_cast<unsigned char>(expr[after])) || expr[after] == '_');
      if (expr.compare(pos, name.size(), name) == 0 && whole) {
        expr.replace(pos, name.size(), value);
        pos += value.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      throw std::invalid_argument("unknown Grafana variable at " + std::to_string(pos) +
                                  " in: " + expr);
    }
  }
  return expr;
}

inline std::string substitute_grafana_variables(std::string expr,
                                                const std::map<std::string, std::string>& set) {
  // Longest names first: "$workload" before a "$work" that might be set too.
  for (auto it = set.rbegin(); it != set.rend(); ++it) {
    for (std::size_t pos = expr.find(it->first); pos != std::string::npos;
         pos = expr.find(it->first, pos + it->second.size())) {
      expr.replace(pos, it->first.size(), it->second);
    }
  }
  return substitute_grafana_variables(std::move(expr));
}

namespace detail {

inline bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}
inline bool ident_char(char c) {
  return ident_start(c) || std::isdigit(static_cast<unsigned char>(c));
}

// The index just past the bracket that closes the one at `open`, skipping strings.
inline std::size_t skip_group(const std::string& e, std::size_t open, char close) {
  const char opening = e[open];
  int depth = 0;
  for (std::size_t i = open; i < e.size(); ++i) {
    if (e[i] == '"' || e[i] == '\'') {
      const char quote = e[i];
      for (++i; i < e.size() && e[i] != quote; ++i) {
        if (e[i] == '\\') ++i;
      }
    } else if (e[i] == opening) {
      ++depth;
    } else if (e[i] == close && --depth == 0) {
      return i + 1;
    }
  }
  throw std::invalid_argument("unbalanced '" + std::string(1, opening) + "' in: " + e);
}

}  // namespace detail

// The metric names an expression selects: identifiers that are neither function or aggregation
// names (followed by "(" or by a by/without clause), nor keywords, nor label names (inside {...} or
// the label list of by/without/on/ignoring/group_left/group_right), nor numbers and durations.
inline std::set<std::string> metric_names(const std::string& e) {
  static const std::set<std::string> kLabelListKeywords = {"by",       "without",    "on",
                                                           "ignoring", "group_left", "group_right"};
  // Keywords, and aggregation operators (followed by "by (...)" rather than "(" in
  // "sum by (le) (...)").
  static const std::set<std::string> kKeywords = {
      "bool",  "offset", "and",    "or",   "unless",  "inf",          "nan",
      "Inf",   "NaN",    "sum",    "min",  "max",     "avg",          "count",
      "group", "stddev", "stdvar", "topk", "bottomk", "count_values", "quantile"};
  std::set<std::string> out;
  std::size_t i = 0;
  while (i < e.size()) {
    const char c = e[i];
    if (c == '"' || c == '\'' || c == '{' || c == '[') {
      const char close = c == '{' ? '}' : c == '[' ? ']' : c;
      if (c == '"' || c == '\'') {
        std::size_t j = i + 1;
        while (j < e.size() && e[j] != c) j += e[j] == '\\' ? 2 : 1;
        if (j >= e.size()) throw std::invalid_argument("unterminated string in: " + e);
        i = j + 1;
      } else {
        i = detail::skip_group(e, i, close);
      }
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      while (i < e.size() && (detail::ident_char(e[i]) || e[i] == '.')) ++i;
    } else if (detail::ident_start(c)) {
      std::size_t j = i;
      while (j < e.size() && detail::ident_char(e[j])) ++j;
      const std::string word = e.substr(i, j - i);
      std::size_t next = j;
      while (next < e.size() && std::isspace(static_cast<unsigned char>(e[next]))) ++next;
      const bool call = next < e.size() && e[next] == '(';
      if (kLabelListKeywords.count(word)) {
        i = call ? detail::skip_group(e, next, ')') : j;
        continue;
      }
      if (!call && !kKeywords.count(word)) out.insert(word);
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace tailor::charts
