#include "recommender/recorded_windows.h"

#include <algorithm>
#include <cstdio>
#include <istream>
#include <map>
#include <ostream>

#include "recommender/csv.h"

namespace tailor::recommender {
namespace {

constexpr std::string_view kColumns[] = {"container",      "start_unix_ms", "end_unix_ms",
                                         "cpu_cores_mean", "cpu_cores_max", "memory_peak_bytes"};
constexpr std::size_t kColumnCount = std::size(kColumns);

// Where each column sits in a row.
struct Columns {
  std::size_t at[kColumnCount];
};

Columns columns(const std::vector<std::string_view>& header, const std::string& source) {
  Columns c;
  for (std::size_t i = 0; i < kColumnCount; ++i) {
    auto it = std::find(header.begin(), header.end(), kColumns[i]);
    if (it == header.end()) {
      throw TraceError(source + ": recording header lacks required column '" +
                       std::string(kColumns[i]) + "'");
    }
    c.at[i] = static_cast<std::size_t>(it - header.begin());
  }
  return c;
}

// The window of one row, or the reason it is none. Range checks beyond parsing are the fold's.
struct ParsedRow {
  std::string container;
  MeasuredWindow window;
  std::string error;
};

ParsedRow parse_row(const std::vector<std::string_view>& f, const Columns& c) {
  ParsedRow row;
  row.container = std::string(f[c.at[0]]);
  for (std::size_t i : {1, 2}) {
    auto v = csv::to_integer(f[c.at[i]]);
    if (!v) {
      row.error = "column '" + std::string(kColumns[i]) + "' is not a whole number of ms: '" +
                  std::string(f[c.at[i]]) + "'";
      return row;
    }
    (i == 1 ? row.window.start_ms : row.window.end_ms) = *v;
  }
  double* values[] = {&row.window.cpu_mean_cores, &row.window.cpu_peak_cores,
                      &row.window.memory_peak_bytes};
  const double limits[] = {kMaxPlausibleCores, kMaxPlausibleCores, kMaxPlausibleBytes};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string_view field = f[c.at[3 + i]];
    auto v = csv::to_double(field);
    if (!v) {
      row.error = "column '" + std::string(kColumns[3 + i]) + "' is not a number: '" +
                  std::string(field) + "'";
      return row;
    }
    if (*v > limits[i]) {
      row.error = "column '" + std::string(kColumns[3 + i]) + "' is implausibly large";
      return row;
    }
    *values[i] = *v;
  }
  return row;
}

}  // namespace

bool is_recording_header(const std::vector<std::string_view>& header) {
  return std::find(header.begin(), header.end(), "start_unix_ms") != header.end();
}

void write_recording_header(std::ostream& out) {
  for (std::size_t i = 0; i < kColumnCount; ++i) out << (i ? "," : "") << kColumns[i];
  out << "\n";
}

void write_recorded_window(std::ostream& out, const RecordedWindow& r) {
  char line[160];
  const MeasuredWindow& w = r.window;
  std::snprintf(line, sizeof line, ",%lld,%lld,%.17g,%.17g,%.17g",
                static_cast<long long>(w.start_ms), static_cast<long long>(w.end_ms),
                w.cpu_mean_cores, w.cpu_peak_cores, w.memory_peak_bytes);
  out << csv::quote(r.container) << line << "\n";
}

void write_recorded_windows(std::ostream& out, const std::vector<RecordedWindow>& windows) {
  write_recording_header(out);
  for (const RecordedWindow& r : windows) write_recorded_window(out, r);
}

void read_recording(std::istream& in, const std::vector<std::string_view>& header,
                    const std::string& source, std::vector<ContainerSeries>& out,
                    TraceDiagnostics& diag) {
  const Columns c = columns(header, source);
  std::map<std::string, std::pair<std::size_t, SamplePeriodFold>> folds;  // -> (series, fold)
  std::string line;
  for (std::size_t line_no = 2; std::getline(in, line); ++line_no) {
    if (line.empty() || line == "\r") continue;
    ++diag.rows_read;
    const std::string where = source + ":" + std::to_string(line_no);
    std::vector<std::string> storage;
    auto fields = csv::split(line, storage);
    if (!fields) {
      diag.reject(where, "unterminated quote");
      continue;
    }
    if (fields->size() != header.size()) {
      diag.reject(where, "has " + std::to_string(fields->size()) + " fields, header has " +
                             std::to_string(header.size()));
      continue;
    }
    ParsedRow row = parse_row(*fields, c);
    if (!row.error.empty()) {
      diag.reject(where, row.error);
      continue;
    }
    auto [it, added] = folds.try_emplace(row.container, out.size(), SamplePeriodFold{});
    if (added) out.push_back({.container = row.container, .window = kSamplePeriod});
    try {
      ContainerSeries& series = out[it->second.first];
      for (const TraceWindow& w : it->second.second.fold(row.window)) series.windows.push_back(w);
      series.measured.push_back(row.window);
    } catch (const UsageWindowError& e) {
      diag.reject(where, e.what());
    }
  }
  for (auto& [container, entry] : folds) {
    if (auto last = entry.second.close()) out[entry.first].windows.push_back(*last);
  }
}

}  // namespace tailor::recommender
