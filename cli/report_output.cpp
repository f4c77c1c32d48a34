#include "cli/report_output.h"

#include <cmath>
#include <ostream>

#include "cli/json_text.h"
#include "recommender/svg_text.h"

namespace tailor::cli {
namespace {

// The table's columns after a two-space indent, single spaces between: 2 + 90 + 10 = 100.
struct Column {
  const char* title;
  std::size_t width;
  bool left;
};
constexpr Column kColumns[] = {
    {"CONTAINER", 14, true}, {"RES", 3, true},      {"REQUEST", 7, false}, {"LIMIT", 7, false},
    {"TARGET", 7, false},    {"LOWER", 7, false},   {"UPPER", 7, false},   {"CHANGE", 8, false},
    {"HISTORY", 12, false},  {"LAST 1D", 7, false}, {"$/MONTH", 9, false}};
constexpr std::size_t kColumnCount = sizeof kColumns / sizeof kColumns[0];
// LAST 1D: what went short in the last day, per resource: CPU used beyond the request on the
// cpu line, OOM kills on the mem line.
constexpr std::size_t kChangeColumn = 7, kLastDayColumn = 9;

std::string with_sign(std::string s, double v, bool sign) { return sign && v > 0 ? "+" + s : s; }

std::string pad(const std::string& s, std::size_t width, bool left) {
  const std::string cut = fit(s, width);
  const std::string space(width - cut.size(), ' ');
  return left ? cut + space : space + cut;
}

std::string sgr(const std::string& text, const char* code, bool colour) {
  return colour ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
}

const char* change_colour(const std::optional<double>& change) {
  if (!change || *change == 0) return nullptr;
  return *change < 0 ? "32" : "33";  // savings green, increases yellow
}

// One line of cells, coloured where `codes` says (nullptr: plain).
void print_line(std::ostream& out, const std::vector<std::string>& cells,
                const std::vector<const char*>& codes, bool colour) {
  std::string line = " ";
  for (std::size_t i = 0; i < kColumnCount; ++i) {
    const std::string cell = pad(cells[i], kColumns[i].width, kColumns[i].left);
    line += " " + (codes[i] ? sgr(cell, codes[i], colour) : cell);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out << line << "\n";
}

using Formatter = std::string (*)(const std::optional<double>&, bool);

// The LAST 1D cell of a resource's line and whether it shows trouble.
std::pair<std::string, bool> last_day(const ContainerRow& row, bool cpu) {
  if (cpu) {
    return {format_core_seconds(row.cpu_shortfall_last_day),
            row.cpu_shortfall_last_day.value_or(0) > 0};
  }
  return {std::to_string(row.oom_kills_last_day) + " OOM", row.oom_kills_last_day > 0};
}

void print_resource(std::ostream& out, const ContainerRow& row, const char* res,
                    const ResourceFigures& f, Formatter format, const std::optional<double>& cost,
                    bool first, bool colour) {
  const auto [short_cell, short_seen] = last_day(row, first);
  const std::vector<std::string> cells = {first ? row.container : "",
                                          res,
                                          format(f.request, false),
                                          format(f.limit, false),
                                          format(f.target, false),
                                          format(f.lower_bound, false),
                                          format(f.upper_bound, false),
                                          format(f.change(), true),
                                          first ? format_history(row.history) : "",
                                          short_cell,
                                          format_money(cost)};
  std::vector<const char*> codes(kColumnCount, nullptr);
  codes[kChangeColumn] = change_colour(f.change());
  if (short_seen) codes[kLastDayColumn] = "31";
  print_line(out, cells, codes, colour);
}

std::string group_title(const ContainerRow& r) {
  return r.ns + "/" + r.workload_kind + "/" + r.workload_name + "  (" + r.policy_kind + " " +
         r.policy_name + ", " + std::to_string(r.pods) + (r.pods == 1 ? " pod)" : " pods)");
}

std::string price_line(const Prices& p) {
  return "at $" + printed("%.6g", p.cpu_core_hour) + " per core-hour, $" +
         printed("%.6g", p.memory_gib_hour) + " per GiB-hour, " + printed("%.0f", kHoursPerMonth) +
         " hours a month";
}

double total_cost(const std::vector<ContainerRow>& rows, const Prices& prices) {
  double total = 0;
  for (const auto& r : rows) total += monthly_cost_change(r, prices).total().value_or(0.0);
  return total;
}

// Machine output at the resolution the figures have: CPU in millicores (the API's), memory in
// whole bytes, money in hundredths of a cent, CPU shortfall in milli-core-seconds; no
// 0.24999999999999997 from subtracting.
constexpr double kCores = 1000, kBytes = 1, kMoney = 10000, kCoreSeconds = 1000;
std::optional<double> at_resolution(const std::optional<double>& v, double per_unit) {
  if (!v) return v;
  return std::round(*v * per_unit) / per_unit;
}

std::string json_at(const std::optional<double>& v, double per_unit) {
  return json_exact(at_resolution(v, per_unit));
}

void resource_json(std::ostream& out, const char* name, const ResourceFigures& f, double unit) {
  out << "\"" << name << "\":{\"request\":" << json_at(f.request, unit)
      << ",\"limit\":" << json_at(f.limit, unit) << ",\"target\":" << json_at(f.target, unit)
      << ",\"lower_bound\":" << json_at(f.lower_bound, unit)
      << ",\"upper_bound\":" << json_at(f.upper_bound, unit)
      << ",\"change\":" << json_at(f.change(), unit) << "}";
}

std::string csv_number(const std::optional<double>& v, double per_unit) {
  return v ? json_exact(at_resolution(v, per_unit)) : "";
}

}  // namespace

std::string format_cores(const std::optional<double>& cores, bool sign) {
  if (!cores) return "-";
  const double v = *cores;
  if (v == 0) return "0";
  if (std::fabs(v) < 1) return with_sign(printed("%.0fm", v * 1000), v, sign);
  return with_sign(printed("%.3g", v), v, sign);
}

std::string format_bytes(const std::optional<double>& bytes, bool sign) {
  if (!bytes) return "-";
  const double v = *bytes, a = std::fabs(v);
  std::string s;
  if (a >= kGiB) {
    s = printed("%.3g", v / kGiB) + "Gi";
  } else if (a >= 1024.0 * 1024) {
    s = printed("%.0f", v / (1024.0 * 1024)) + "Mi";
  } else if (a >= 1024) {
    s = printed("%.0f", v / 1024) + "Ki";
  } else {
    s = printed("%.0f", v);
  }
  return with_sign(s, v, sign);
}

std::string format_core_seconds(const std::optional<double>& core_seconds) {
  if (!core_seconds) return "-";
  const double v = *core_seconds;
  if (v < 1000) return printed("%.0fs", v);
  if (v < 99950) return printed("%.1fks", v / 1000);
  if (v < 999500) return printed("%.0fks", v / 1000);
  return printed("%.0fMs", v / 1e6);
}

std::string format_money(const std::optional<double>& amount) {
  if (!amount) return "-";
  return printed(std::fabs(*amount) >= 100000 ? "%+.0f" : "%+.2f", *amount);
}

std::string format_history(const std::optional<SampleHistory>& history) {
  if (!history) return "unknown";
  const double n = static_cast<double>(history->samples);
  std::string samples = n >= 1e6   ? printed("%.1fM", n / 1e6)
                        : n >= 1e4 ? printed("%.0fk", n / 1e3)
                                   : printed("%.0f", n);
  return printed("%.1fd", history->days) + " " + samples;
}

std::string fit(const std::string& s, std::size_t width) {
  if (s.size() <= width) return s;
  if (width == 0) return "";
  return s.substr(0, width - 1) + "~";
}

void print_report_table(std::ostream& out, const std::vector<ContainerRow>& rows,
                        const Prices& prices, TableStyle style) {
  if (rows.empty()) {
    out << "No workload is under a VerticalScalingPolicy or VerticalPodAutoscaler.\n";
    return;
  }
  std::vector<std::string> titles;
  for (const auto& c : kColumns) titles.push_back(c.title);
  print_line(out, titles, std::vector<const char*>(kColumnCount, style.colour ? "1" : nullptr),
             style.colour);
  std::string group;
  int ooms = 0;
  for (const auto& r : rows) {
    const std::string title = group_title(r);
    if (title != group) {
      out << sgr(fit(title, kTableWidth), "1", style.colour) << "\n";
      group = title;
    }
    const CostChange cost = monthly_cost_change(r, prices);
    // A policy that acts on nothing and recommends nothing has no figures, only its note.
    if (!r.container.empty()) {
      print_resource(out, r, "cpu", r.cpu, format_cores, cost.cpu, true, style.colour);
      print_resource(out, r, "mem", r.memory, format_bytes, cost.memory, false, style.colour);
    }
    if (!r.note.empty()) out << fit("  ! " + r.note, kTableWidth) << "\n";
    ooms += r.oom_kills_last_day;
  }
  out << fit("Monthly change, all rows: " + format_money(total_cost(rows, prices)) + ", " +
                 std::to_string(rows.size()) + " containers, " + std::to_string(ooms) +
                 " OOM kills in the last day",
             kTableWidth)
      << "\n"
      << fit("(USD " + price_line(prices) + ")", kTableWidth) << "\n"
      << fit("(LAST 1D: cpu, core-seconds used beyond the request, - without --prometheus; "
             "mem, OOM kills)",
             kTableWidth)
      << "\n";
}

void write_report_json(std::ostream& out, const std::vector<ContainerRow>& rows,
                       const Prices& prices, const std::string& more_members) {
  out << "{\"prices\":{\"cpu_core_hour\":" << json_exact(prices.cpu_core_hour)
      << ",\"memory_gib_hour\":" << json_exact(prices.memory_gib_hour)
      << "},\"hours_per_month\":" << json_exact(kHoursPerMonth) << ",\"rows\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ContainerRow& r = rows[i];
    const CostChange cost = monthly_cost_change(r, prices);
    out << (i ? "," : "") << "{\"namespace\":" << json_string(r.ns)
        << ",\"workload\":{\"kind\":" << json_string(r.workload_kind)
        << ",\"name\":" << json_string(r.workload_name)
        << "},\"policy\":{\"kind\":" << json_string(r.policy_kind)
        << ",\"name\":" << json_string(r.policy_name)
        << "},\"container\":" << json_string(r.container) << ",\"pods\":" << r.pods << ",";
    resource_json(out, "cpu", r.cpu, kCores);
    out << ",";
    resource_json(out, "memory", r.memory, kBytes);
    out << ",\"history\":";
    if (r.history) {
      out << "{\"days\":" << json_exact(r.history->days) << ",\"samples\":" << r.history->samples
          << "}";
    } else {
      out << "null";
    }
    out << ",\"oom_kills_last_day\":" << r.oom_kills_last_day
        << ",\"cpu_shortfall_last_day\":" << json_at(r.cpu_shortfall_last_day, kCoreSeconds)
        << ",\"restarts\":" << r.restarts
        << ",\"monthly_cost_change\":{\"cpu\":" << json_at(cost.cpu, kMoney)
        << ",\"memory\":" << json_at(cost.memory, kMoney)
        << ",\"total\":" << json_at(cost.total(), kMoney) << "},\"note\":" << json_string(r.note)
        << "}";
  }
  out << "],\"monthly_cost_change\":" << json_at(total_cost(rows, prices), kMoney)
      << (more_members.empty() ? "" : ",") << more_members << "}\n";
}

void write_report_csv(std::ostream& out, const std::vector<ContainerRow>& rows,
                      const Prices& prices) {
  out << "namespace,workload_kind,workload,policy_kind,policy,container,pods,"
         "cpu_request,cpu_limit,cpu_target,cpu_lower_bound,cpu_upper_bound,cpu_change,"
         "memory_request,memory_limit,memory_target,memory_lower_bound,memory_upper_bound,"
         "memory_change,history_days,history_samples,oom_kills_last_day,cpu_shortfall_last_day,"
         "restarts,"
         "monthly_cost_change_cpu,monthly_cost_change_memory,monthly_cost_change,note\n";
  for (const ContainerRow& r : rows) {
    const CostChange cost = monthly_cost_change(r, prices);
    std::string line;
    for (const std::string& field :
         {r.ns, r.workload_kind, r.workload_name, r.policy_kind, r.policy_name, r.container}) {
      line += csv_field(field) + ",";
    }
    line += std::to_string(r.pods);
    for (const auto& [f, unit] : {std::pair{&r.cpu, kCores}, std::pair{&r.memory, kBytes}}) {
      for (const auto& v :
           {f->request, f->limit, f->target, f->lower_bound, f->upper_bound, f->change()}) {
        line += "," + csv_number(v, unit);
      }
    }
    line += "," + (r.history ? json_exact(r.history->days) : std::string()) + "," +
            (r.history ? std::to_string(r.history->samples) : "");
    line += "," + std::to_string(r.oom_kills_last_day) + "," +
            csv_number(r.cpu_shortfall_last_day, kCoreSeconds) + "," + std::to_string(r.restarts);
    line += "," + csv_number(cost.cpu, kMoney) + "," + csv_number(cost.memory, kMoney) + "," +
            csv_number(cost.total(), kMoney) + "," + csv_field(r.note);
    out << line << "\n";
  }
}

std::string html_escape(const std::string& s) { return recommender::svg::xml_text(s); }

namespace {

constexpr const char* kHtmlStyle =
    "body{font:14px system-ui,sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse}th,td{padding:3px 8px;border-bottom:1px solid #ddd}"
    "th{text-align:left;background:#f3f3f3}td.n{text-align:right;font-variant-numeric:"
    "tabular-nums}.save{color:#107010}.more{color:#a06000}.oom{color:#c00000;font-weight:bold}"
    ".note{color:#c00000}";

std::string html_cell(const std::string& text, const char* css_class = nullptr) {
  return std::string("<td") + (css_class ? std::string(" class=\"") + css_class + "\"" : "") + ">" +
         html_escape(text) + "</td>";
}

const char* change_class(const std::optional<double>& change) {
  if (!change || *change == 0) return "n";
  return *change < 0 ? "n save" : "n more";
}

void html_resource(std::ostream& out, const ContainerRow& r, const char* res,
                   const ResourceFigures& f, Formatter format, const std::optional<double>& cost,
                   bool first) {
  out << "<tr>" << html_cell(first ? r.ns : "")
      << html_cell(first ? r.workload_kind + "/" + r.workload_name : "")
      << html_cell(first ? r.policy_kind + "/" + r.policy_name : "")
      << html_cell(first ? r.container : "") << html_cell(res)
      << html_cell(format(f.request, false), "n") << html_cell(format(f.limit, false), "n")
      << html_cell(format(f.target, false), "n") << html_cell(format(f.lower_bound, false), "n")
      << html_cell(format(f.upper_bound, false), "n")
      << html_cell(format(f.change(), true), change_class(f.change()))
      << html_cell(first ? format_history(r.history) : "", "n")
      << html_cell(first ? std::to_string(r.oom_kills_last_day) : "",
                   first && r.oom_kills_last_day > 0 ? "n oom" : "n")
      << html_cell(first ? format_core_seconds(r.cpu_shortfall_last_day) : "",
                   first && r.cpu_shortfall_last_day.value_or(0) > 0 ? "n oom" : "n")
      << html_cell(format_money(cost), "n") << "</tr>\n";
}

}  // namespace

void write_report_html(std::ostream& out, const std::vector<ContainerRow>& rows,
                       const Prices& prices, const std::string& more_html) {
  int ooms = 0;
  for (const auto& r : rows) ooms += r.oom_kills_last_day;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      << "<title>tailor report</title><style>" << kHtmlStyle << "</style></head><body>\n"
      << "<h1>tailor report</h1>\n<p>Monthly change, all rows: <b>"
      << html_escape(format_money(total_cost(rows, prices))) << " USD</b>, " << rows.size()
      << " containers, " << ooms << " OOM kills in the last day (USD "
      << html_escape(price_line(prices)) << ").</p>\n<table>\n<tr>";
  for (const char* h :
       {"namespace", "workload", "policy", "container", "res", "request", "limit", "target",
        "lower", "upper", "change", "history", "OOM/1d", "CPU short/1d", "$/month"}) {
    out << "<th>" << h << "</th>";
  }
  out << "</tr>\n";
  for (const auto& r : rows) {
    const CostChange cost = monthly_cost_change(r, prices);
    html_resource(out, r, "cpu", r.cpu, format_cores, cost.cpu, true);
    html_resource(out, r, "mem", r.memory, format_bytes, cost.memory, false);
    if (!r.note.empty()) {
      out << "<tr><td></td><td colspan=\"14\" class=\"note\">" << html_escape(r.note)
          << "</td></tr>\n";
    }
  }
  out << "</table>\n" << more_html << "</body></html>\n";
}

bool want_colour(bool is_terminal, const char* no_color_env) {
  return is_terminal && (no_color_env == nullptr || *no_color_env == '\0');
}

}  // namespace tailor::cli
