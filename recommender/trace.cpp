#include "recommender/trace.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "recommender/csv.h"
#include "recommender/gzip_file.h"
#include "recommender/recorded_windows.h"

namespace tailor::recommender {
namespace {

constexpr std::size_t kMaxMessages = 20;

// Where each quantity sits in a row (-1: absent) and how to scale it to seconds/cores/bytes.
struct Layout {
  int time = -1, container = -1, avg_cpu = -1, max_cpu = -1, p95_cpu = -1;
  int avg_mem = -1, max_mem = -1, cpu_limit = -1, memory_limit = -1;
  double time_scale = 1, cpu_scale = 1, memory_scale = 1;
  bool google = false;
};

int column(const std::vector<std::string_view>& header, std::string_view name) {
  auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

void require(int index, std::string_view name, const std::string& source) {
  if (index < 0) {
    throw TraceError(source + ": header lacks required column '" + std::string(name) + "'");
  }
}

Layout google_layout(const std::vector<std::string_view>& h, const std::string& source) {
  Layout l;
  l.google = true;
  l.time = column(h, "time");
  l.container = column(h, "unique_id");
  l.avg_cpu = column(h, "avg_cpu_usage");
  l.max_cpu = column(h, "max_cpu_usage");
  l.p95_cpu = column(h, "p95_cpu_usage");
  l.avg_mem = column(h, "avg_memory_usage");
  l.max_mem = column(h, "max_memory_usage");
  l.cpu_limit = column(h, "cpu_limit");
  l.memory_limit = column(h, "memory_limit");
  for (auto [i, n] :
       {std::pair{l.time, "time"}, {l.avg_cpu, "avg_cpu_usage"}, {l.max_mem, "max_memory_usage"}}) {
    require(i, n, source);
  }
  l.time_scale = 1e-6;
  l.cpu_scale = kGoogleCpuCores;
  l.memory_scale = kGoogleMemoryBytes;
  return l;
}

Layout generic_layout(const std::vector<std::string_view>& h, const std::string& source) {
  Layout l;
  l.time = column(h, "time_s");
  l.container = column(h, "container");
  l.avg_cpu = column(h, "cpu_cores");
  l.avg_mem = column(h, "memory_bytes");
  for (auto [i, n] : {std::pair{l.time, "time_s"},
                      {l.container, "container"},
                      {l.avg_cpu, "cpu_cores"},
                      {l.avg_mem, "memory_bytes"}}) {
    require(i, n, source);
  }
  l.max_cpu = column(h, "max_cpu_cores");
  l.p95_cpu = column(h, "p95_cpu_cores");
  l.max_mem = column(h, "max_memory_bytes");
  l.cpu_limit = column(h, "cpu_limit_cores");
  l.memory_limit = column(h, "memory_limit_bytes");
  if ((l.cpu_limit < 0) != (l.memory_limit < 0)) {
    throw TraceError(source + ": give both cpu_limit_cores and memory_limit_bytes, or neither");
  }
  return l;
}

// Reads one numeric field; an error names the column. Absent columns read as `fallback`.
struct FieldReader {
  const std::vector<std::string_view>& fields;
  const std::vector<std::string_view>& header;
  std::string error;
  int missing = 0;

  // Google marks an unrecorded within-window percentile as -1: fall back, do not reject.
  double get_optional(int index, double scale, double max, double fallback) {
    if (index >= 0 && error.empty()) {
      auto v = csv::to_double(fields[index]);
      if (v && *v < 0) {
        ++missing;
        return fallback;
      }
    }
    return get(index, scale, max, fallback);
  }

  double get(int index, double scale, double max, double fallback) {
    if (index < 0) return fallback;
    if (!error.empty()) return 0;
    auto v = csv::to_double(fields[index]);
    const std::string name(header[index]);
    if (!v) {
      error = "column '" + name + "' is not a number: '" + std::string(fields[index]) + "'";
    } else if (!std::isfinite(*v)) {
      error = "column '" + name + "' is not finite";
    } else if (*v < 0) {
      error = "column '" + name + "' is negative";
    } else if (*v * scale > max) {
      error = "column '" + name + "' is implausibly large";
    } else {
      return *v * scale;
    }
    return 0;
  }
};

// Makes a window self-consistent; returns how many values it had to clamp.
int clamp_window(TraceWindow& w) {
  int clamped = 0;
  if (w.max_cpu < w.avg_cpu) w.max_cpu = w.avg_cpu, ++clamped;
  if (w.p95_cpu > w.max_cpu) w.p95_cpu = w.max_cpu, ++clamped;
  if (w.max_mem > 0 && w.max_mem < w.avg_mem) w.max_mem = w.avg_mem, ++clamped;
  return clamped;
}

Seconds median_step(const std::vector<TraceWindow>& w) {
  std::vector<Seconds> steps;
  for (std::size_t i = 1; i < w.size(); ++i) steps.push_back(w[i].start - w[i - 1].start);
  if (steps.empty()) return 0;
  std::nth_element(steps.begin(), steps.begin() + steps.size() / 2, steps.end());
  return steps[steps.size() / 2];
}

class Reader {
 public:
  Reader(const std::string& source, std::vector<ContainerSeries>& out, TraceDiagnostics& diag)
      : source_(source), out_(out), diag_(diag) {}

  void read(std::istream& in) {
    std::string line;
    if (!std::getline(in, line)) throw TraceError(source_ + ": empty file, expected a header");
    std::vector<std::string> header_storage;
    auto header_fields = csv::split(line, header_storage);
    if (!header_fields) throw TraceError(source_ + ": malformed header");
    header_names_.assign(header_fields->begin(), header_fields->end());
    header_.assign(header_names_.begin(), header_names_.end());
    if (is_recording_header(header_)) return read_recording(in, header_, source_, out_, diag_);
    if (column(header_, "time_s") >= 0) {
      layout_ = generic_layout(header_, source_);
    } else if (column(header_, "time") >= 0) {
      layout_ = google_layout(header_, source_);
    } else {
      throw TraceError(source_ +
                       ": header has neither 'time_s' (generic CSV), 'time' (Google 2019 CSV) nor "
                       "'start_unix_ms' (recorded usage windows)");
    }
    std::size_t line_no = 1;
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty() || line == "\r") continue;
      read_row(line, line_no);
    }
    finish();
  }

 private:
  void read_row(const std::string& line, std::size_t line_no) {
    ++diag_.rows_read;
    const std::string where = source_ + ":" + std::to_string(line_no);
    std::vector<std::string> storage;
    auto fields = csv::split(line, storage);
    if (!fields) return diag_.reject(where, "unterminated quote");
    if (fields->size() != header_.size()) {
      return diag_.reject(where, "has " + std::to_string(fields->size()) + " fields, header has " +
                                     std::to_string(header_.size()));
    }
    FieldReader r{*fields, header_, {}};
    const Layout& l = layout_;
    TraceWindow w;
    const double t = r.get(l.time, l.time_scale, kMaxPlausibleTime, 0);
    w.avg_cpu = r.get(l.avg_cpu, l.cpu_scale, kMaxPlausibleCores, 0);
    w.max_cpu = r.get(l.max_cpu, l.cpu_scale, kMaxPlausibleCores, w.avg_cpu);
    w.p95_cpu = r.get_optional(l.p95_cpu, l.cpu_scale, kMaxPlausibleCores, w.max_cpu);
    w.avg_mem = r.get(l.avg_mem, l.memory_scale, kMaxPlausibleBytes, 0);
    w.max_mem = r.get(l.max_mem, l.memory_scale, kMaxPlausibleBytes, w.avg_mem);
    w.cpu_limit = r.get(l.cpu_limit, l.cpu_scale, kMaxPlausibleCores, 0);
    w.memory_limit = r.get(l.memory_limit, l.memory_scale, kMaxPlausibleBytes, 0);
    if (!r.error.empty()) return diag_.reject(where, r.error);
    w.start = static_cast<Seconds>(std::floor(t));
    if (r.missing > 0) diag_.clamp(where, "p95 CPU not recorded (negative); using max CPU");
    if (int n = clamp_window(w)) {
      diag_.values_clamped += n - 1;
      diag_.clamp(where, "max below mean or p95 above max; clamped");
    }
    std::string key = l.container >= 0 ? std::string((*fields)[l.container]) : source_;
    ContainerSeries& s = series(key);
    if (!s.windows.empty() && w.start <= s.windows.back().start) {
      return diag_.reject(where, "timestamp " + std::to_string(w.start) +
                                     " s is not after the container's previous row (" +
                                     std::to_string(s.windows.back().start) + " s)");
    }
    // One corrupt far-future row must not make every later row look out of order.
    if (!s.windows.empty() && w.start - s.windows.back().start > kMaxForwardJump) {
      return diag_.reject(where, "timestamp " + std::to_string(w.start) +
                                     " s is more than a year after the container's previous row");
    }
    carry_limits(s, w);
    s.windows.push_back(w);
  }

  // A row without limits keeps the previous ones (a zero limit is "not recorded").
  void carry_limits(const ContainerSeries& s, TraceWindow& w) {
    if (s.windows.empty()) return;
    if (w.cpu_limit == 0) w.cpu_limit = s.windows.back().cpu_limit;
    if (w.memory_limit == 0) w.memory_limit = s.windows.back().memory_limit;
  }

  ContainerSeries& series(const std::string& key) {
    auto [it, inserted] = index_.try_emplace(key, out_.size());
    if (inserted) {
      ContainerSeries s;
      s.container = key;
      s.has_limits = layout_.cpu_limit >= 0 && layout_.memory_limit >= 0;
      out_.push_back(std::move(s));
    }
    return out_[it->second];
  }

  void finish() {
    Seconds fallback = 0;
    for (auto& [key, i] : index_) fallback = std::max(fallback, median_step(out_[i].windows));
    for (auto& [key, i] : index_) {
      ContainerSeries& s = out_[i];
      Seconds step = layout_.google ? kGoogleWindow : median_step(s.windows);
      s.window = step > 0 ? step : (fallback > 0 ? fallback : 60);
      if (s.has_limits && !s.windows.empty() &&
          (s.windows.front().cpu_limit == 0 || s.windows.front().memory_limit == 0)) {
        s.has_limits = false;  // limits never recorded: replay uses usage, like a limit-less trace
      }
    }
  }

  std::string source_;
  std::vector<ContainerSeries>& out_;
  TraceDiagnostics& diag_;
  std::vector<std::string> header_names_;
  std::vector<std::string_view> header_;  // views into header_names_
  Layout layout_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace

void TraceDiagnostics::reject(const std::string& where, const std::string& why) {
  ++rows_rejected;
  if (messages.size() < kMaxMessages) messages.push_back(where + ": rejected: " + why);
}

void TraceDiagnostics::clamp(const std::string& where, const std::string& why) {
  ++values_clamped;
  if (messages.size() < kMaxMessages) messages.push_back(where + ": " + why);
}

void read_trace_stream(std::istream& in, const std::string& source,
                       std::vector<ContainerSeries>& out, TraceDiagnostics& diag) {
  Reader(source, out, diag).read(in);
}

void read_trace_file(const std::string& path, std::vector<ContainerSeries>& out,
                     TraceDiagnostics& diag) {
  if (is_gzip_path(path)) {
    std::istringstream in(read_gzip_file(path));
    read_trace_stream(in, path, out, diag);
    return;
  }
  std::ifstream in(path);
  if (!in) throw TraceError(path + ": cannot open for reading");
  read_trace_stream(in, path, out, diag);
}

std::vector<ContainerSeries> read_traces(const std::vector<std::string>& paths,
                                         TraceDiagnostics& diag) {
  namespace fs = std::filesystem;
  std::vector<ContainerSeries> out;
  for (const auto& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> files;
      for (const auto& e : fs::recursive_directory_iterator(path)) {
        const std::string name = e.path().string();
        if (e.is_regular_file() && (name.ends_with(".csv") || name.ends_with(".csv.gz"))) {
          files.push_back(name);
        }
      }
      std::sort(files.begin(), files.end());
      if (files.empty()) throw TraceError(path + ": directory holds no .csv or .csv.gz trace");
      for (const auto& f : files) read_trace_file(f, out, diag);
    } else {
      read_trace_file(path, out, diag);
    }
  }
  return out;
}

}  // namespace tailor::recommender
