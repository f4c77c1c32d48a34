// `tailor report`'s outputs: the terminal table (at most 100 columns, ANSI colour on request),
// JSON, CSV and an HTML page. Pure: text from rows.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cli/workload_report.h"

namespace tailor::cli {

inline constexpr std::size_t kTableWidth = 100;

// Compact quantities for the table: cores as "250m" or "1.5", bytes as "512Mi" or "1.5Gi", "-"
// when unknown; changes with their sign ("+150m", "-64Mi"); money as "+4.78" / "-0.37".
std::string format_cores(const std::optional<double>& cores, bool sign = false);
std::string format_bytes(const std::optional<double>& bytes, bool sign = false);
std::string format_money(const std::optional<double>& amount);
// Core-seconds as "118s", "4.3ks", "864ks", "8640Ms"; "-" when unknown.
std::string format_core_seconds(const std::optional<double>& core_seconds);
// "3.2d 1234", "0.0d 12k", or "unknown" without a checkpoint.
std::string format_history(const std::optional<SampleHistory>& history);
// s cut to width columns, its last one "~" when cut (names are ASCII, as Kubernetes names are).
std::string fit(const std::string& s, std::size_t width);

struct TableStyle {
  bool colour = false;  // ANSI SGR sequences: savings green, increases yellow, OOM kills red
};
void print_report_table(std::ostream& out, const std::vector<ContainerRow>& rows,
                        const Prices& prices, TableStyle style);
// {"prices":{...},"hours_per_month":730,"rows":[...],"monthly_cost_change":N}: cores and bytes
// as numbers, null for what is unknown. `more_members`, when given, is written as further
// members of the object (e.g. "\"replayed\":[...]").
void write_report_json(std::ostream& out, const std::vector<ContainerRow>& rows,
                       const Prices& prices, const std::string& more_members = "");
// A header line, then one line per container (RFC 4180; empty fields for what is unknown).
void write_report_csv(std::ostream& out, const std::vector<ContainerRow>& rows,
                      const Prices& prices);

// One self-contained HTML page (inline style, no script, nothing fetched): the summary and a
// table with a row per container and resource, the same figures as the terminal table, names
// escaped; `more_html` (already escaped) goes after the table.
void write_report_html(std::ostream& out, const std::vector<ContainerRow>& rows,
                       const Prices& prices, const std::string& more_html = "");
// &, <, >, " and ' as character references.
std::string html_escape(const std::string& s);

// Whether to colour: only a terminal, and never when NO_COLOR is set to anything non-empty
// (no-color.org).
bool want_colour(bool is_terminal, const char* no_color_env);

}  // namespace tailor::cli
