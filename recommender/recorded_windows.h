// A recorded stream of measured usage windows (what tailor-controller received from its sources,
// before any folding), as a CSV that `tailor replay` reads like any trace: each container's
// windows are folded into sample periods by the same SamplePeriodFold the live controller uses,
// so a replay of a recording feeds its models what production fed them.
//
// Columns (docs/scoring.md, 2.1): container,start_unix_ms,end_unix_ms,cpu_cores_mean,
// cpu_cores_max,memory_peak_bytes. Values are written to 17 significant digits, so they read back
// exactly.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "recommender/sample_period.h"
#include "recommender/trace.h"

namespace tailor::recommender {

struct RecordedWindow {
  std::string container;
  MeasuredWindow window;
  friend bool operator==(const RecordedWindow&, const RecordedWindow&) = default;
};

// Whether a CSV header is one of a recording (it has start_unix_ms).
bool is_recording_header(const std::vector<std::string_view>& header);

void write_recorded_windows(std::ostream& out, const std::vector<RecordedWindow>& windows);
// The same in parts, for a recorder that appends windows as they come.
void write_recording_header(std::ostream& out);
void write_recorded_window(std::ostream& out, const RecordedWindow& window);

// Reads the rows after `header` and folds each container's windows into sample periods: one
// series per container, in order of first appearance, window = kSamplePeriod, its last open
// period closed at the end. A row that is not a usable window (unparsable, NaN, negative, not
// positive in duration, out of time order) is rejected into `diag` ("source:line: rejected:
// why"). Throws TraceError when the header lacks a column.
void read_recording(std::istream& in, const std::vector<std::string_view>& header,
                    const std::string& source, std::vector<ContainerSeries>& out,
                    TraceDiagnostics& diag);

}  // namespace tailor::recommender
